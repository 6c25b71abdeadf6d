; Java tags for gitgraph. Capture names: see README.md here.

; -- definitions -------------------------------------------------------------------------------

; records are classes with a canonical constructor
[
  (class_declaration
    name: (identifier) @name.definition.class)
  (record_declaration
    name: (identifier) @name.definition.class)
] @definition.class

; @interface Ann {} declares an annotation type, an interface to the type system
[
  (interface_declaration
    name: (identifier) @name.definition.interface)
  (annotation_type_declaration
    name: (identifier) @name.definition.interface)
] @definition.interface

(enum_declaration
  name: (identifier) @name.definition.enum) @definition.enum

; methods and constructors (a constructor of A is A.A)
[
  (method_declaration
    name: (identifier) @name.definition.function)
  (constructor_declaration
    name: (identifier) @name.definition.function)
  (compact_constructor_declaration
    name: (identifier) @name.definition.function)
  (annotation_type_element_declaration
    name: (identifier) @name.definition.function)
] @definition.function

; -- references --------------------------------------------------------------------------------

; helper(...)
(method_invocation
  !object
  name: (identifier) @name.reference.call)

; obj.helper(...), this.helper(...), Type.helper(...): the receiver is its own capture because
; no node spans "obj.helper" without the arguments
(method_invocation
  object: (_) @reference.receiver
  name: (identifier) @name.reference.call)

; new Foo(...), new Foo<>(...), new pkg.Foo(...)
(object_creation_expression
  type: [
    (type_identifier) @name.reference.call
    (scoped_type_identifier) @name.reference.call
    (generic_type [(type_identifier) (scoped_type_identifier)] @name.reference.call)
  ])

; class A extends B<T>
(superclass
  [
    (type_identifier) @name.reference.inherit
    (scoped_type_identifier) @name.reference.inherit
    (generic_type [(type_identifier) (scoped_type_identifier)] @name.reference.inherit)
  ])

; implements I, J<T> / interface I extends J, K
(super_interfaces
  (type_list
    [
      (type_identifier) @name.reference.inherit
      (scoped_type_identifier) @name.reference.inherit
      (generic_type [(type_identifier) (scoped_type_identifier)] @name.reference.inherit)
    ]))

(extends_interfaces
  (type_list
    [
      (type_identifier) @name.reference.inherit
      (scoped_type_identifier) @name.reference.inherit
      (generic_type [(type_identifier) (scoped_type_identifier)] @name.reference.inherit)
    ]))

; -- imports (one match per bound name) --------------------------------------------------------

; import a.b.C; / import static a.b.C.m;
(import_declaration
  (scoped_identifier
    scope: (_) @import.from
    name: (identifier) @import.name)
  .)

; import a.b.*; / import static a.b.C.*;
(import_declaration
  [(identifier) (scoped_identifier)] @import.from
  (asterisk) @import.star)
