; Go tags for gitgraph. Capture names: see README.md here.

; -- definitions -------------------------------------------------------------------------------

(function_declaration
  name: (identifier) @name.definition.function) @definition.function

; func (s *Server) Run() → Server.Run: the receiver's type owns the method, and @self names the
; receiver variable, so s.helper() inside is written self.helper()
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      name: (identifier)? @self
      type: [
        (type_identifier) @definition.parent
        (pointer_type (type_identifier) @definition.parent)
        (generic_type type: (type_identifier) @definition.parent)
        (pointer_type (generic_type type: (type_identifier) @definition.parent))
      ]))
  name: (field_identifier) @name.definition.function) @definition.function

(type_spec
  name: (type_identifier) @name.definition.struct
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name.definition.interface
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name.definition.type
  type: [
    (type_identifier) (qualified_type) (generic_type) (pointer_type) (function_type)
    (map_type) (slice_type) (array_type) (channel_type) (negated_type)
  ]) @definition.type

; type A = B
(type_alias
  name: (type_identifier) @name.definition.type) @definition.type

; interface methods: Runner.Run
(interface_type
  (method_elem
    name: (field_identifier) @name.definition.function) @definition.function)

; var handler = func(...) {...} at package level
(source_file
  (var_declaration
    (var_spec
      name: (identifier) @name.definition.function
      value: (expression_list . (func_literal) .)) @definition.function))

; -- references --------------------------------------------------------------------------------

(call_expression
  function: [(identifier) (selector_expression)] @name.reference.call)

; generic instantiation f[int](x)
(call_expression
  function: (index_expression
    operand: [(identifier) (selector_expression)] @name.reference.call))

; Server{...} / &pkg.Config{...} constructs the type like a call
(composite_literal
  type: [(type_identifier) (qualified_type)] @name.reference.call)

; embedded struct fields and embedded interfaces are Go's inheritance
(field_declaration_list
  (field_declaration
    !name
    type: [
      (type_identifier) @name.reference.inherit
      (qualified_type) @name.reference.inherit
      (pointer_type [(type_identifier) (qualified_type)] @name.reference.inherit)
      (generic_type type: [(type_identifier) (qualified_type)] @name.reference.inherit)
    ]))

(interface_type
  (type_elem
    .
    [(type_identifier) (qualified_type)] @name.reference.inherit
    .))

; -- imports (one match per bound name) --------------------------------------------------------

; import "fmt" / import f "fmt" / import _ "embed"
(import_spec
  !name
  path: (_) @import.module)

(import_spec
  name: [(package_identifier) (blank_identifier)] @import.alias
  path: (_) @import.module)

; import . "strings" binds every exported name
(import_spec
  name: (dot)
  path: (_) @import.from @import.star)
