; Python tags for gitgraph. Capture names follow the tree-sitter tags convention
; (@name.definition.KIND / @definition.KIND, @name.reference.KIND); see README.md here.

(class_definition
  name: (identifier) @name.definition.class) @definition.class

(function_definition
  name: (identifier) @name.definition.function) @definition.function

(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @name.reference.inherit))

(call
  function: [(identifier) (attribute)] @name.reference.call)

(import_statement
  name: (dotted_name) @import.module)

(import_statement
  name: (aliased_import
    name: (dotted_name) @import.module
    alias: (identifier) @import.alias))

(import_from_statement
  module_name: (_) @import.from
  name: (dotted_name) @import.name)

(import_from_statement
  module_name: (_) @import.from
  name: (aliased_import
    name: (dotted_name) @import.name
    alias: (identifier) @import.alias))

(import_from_statement
  module_name: (_) @import.from
  (wildcard_import) @import.star)

; What an attribute holds, so `self.attr.m()` and `self.Attr()` resolve: `self.attr = Cls(...)`
; in a method, and `Attr = Cls` / `attr = Cls(...)` in a class body (@assign.self / @assign.class
; name the attribute, @assign.value what is called, @assign.alias what is assigned itself).
(assignment
  left: (attribute
    object: (identifier) @_receiver
    attribute: (identifier) @assign.self)
  right: (call
    function: [(identifier) (attribute)] @assign.value)
  (#eq? @_receiver "self"))

(class_definition
  body: (block
    (assignment
      left: (identifier) @assign.class
      right: [(identifier) (attribute)] @assign.alias)))

; `X = staticmethod(f)` / `classmethod(f)` in a class body: X is f (@assign.alias)
(class_definition
  body: (block
    (assignment
      left: (identifier) @assign.class
      right: (call
        function: (identifier) @_wrapper
        arguments: (argument_list . [(identifier) (attribute)] @assign.alias .)))
  (#any-of? @_wrapper "staticmethod" "classmethod")))

(class_definition
  body: (block
    (assignment
      left: (identifier) @assign.class
      right: (call
        function: [(identifier) (attribute)] @assign.value))))

; Functions and classes used as values rather than called: passed as an argument
; (`re.sub(p, self.unitsub, s)`), assigned or chosen (`key = keys.typedkey if typed else
; keys.hashkey`), returned, put in a container (`{"lru": lru_cache}`), or applied as a
; decorator. Whoever holds the value may call it, so a change to it reaches them.
(call arguments: (argument_list [(identifier) (attribute)] @name.reference.value))
(call arguments: (argument_list
  (keyword_argument value: [(identifier) (attribute)] @name.reference.value)))
(assignment right: [(identifier) (attribute)] @name.reference.value)
(conditional_expression [(identifier) (attribute)] @name.reference.value)
(return_statement [(identifier) (attribute)] @name.reference.value)
(pair value: [(identifier) (attribute)] @name.reference.value)
(list [(identifier) (attribute)] @name.reference.value)
(tuple [(identifier) (attribute)] @name.reference.value)
(set [(identifier) (attribute)] @name.reference.value)
(decorator [(identifier) (attribute)] @name.reference.value)
(default_parameter value: [(identifier) (attribute)] @name.reference.value)
(typed_default_parameter value: [(identifier) (attribute)] @name.reference.value)
; `self.x` read anywhere: a property, or a method taken as a value (one that is called is
; a call, and graph building skips the value ref it duplicates)
((attribute object: (identifier) @_object) @name.reference.value
  (#any-of? @_object "self" "cls"))
