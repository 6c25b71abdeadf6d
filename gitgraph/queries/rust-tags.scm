; Rust tags for gitgraph. Capture names: see README.md here.

; -- definitions -------------------------------------------------------------------------------

(function_item
  name: (identifier) @name.definition.function) @definition.function

; fn area(&self) -> f64; in a trait
(function_signature_item
  name: (identifier) @name.definition.function) @definition.function

[
  (struct_item
    name: (type_identifier) @name.definition.struct)
  (union_item
    name: (type_identifier) @name.definition.struct)
] @definition.struct

(enum_item
  name: (type_identifier) @name.definition.enum) @definition.enum

(trait_item
  name: (type_identifier) @name.definition.trait) @definition.trait

(type_item
  name: (type_identifier) @name.definition.type) @definition.type

; `mod name { ... }` (a body-less `mod name;` is an import of the file, below)
(mod_item
  name: (identifier) @name.definition.module
  body: (declaration_list)) @definition.module

; impl [Trait for] Type { ... }: a scope naming its methods Type.m, not a symbol
(impl_item
  type: [
    (type_identifier) @name.definition.impl
    (scoped_type_identifier name: (type_identifier) @name.definition.impl)
    (generic_type type: (type_identifier) @name.definition.impl)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name.definition.impl))
  ]) @definition.impl

; -- references --------------------------------------------------------------------------------

(call_expression
  function: [(identifier) (scoped_identifier) (field_expression)] @name.reference.call)

; parse::<T>(x)
(call_expression
  function: (generic_function
    function: [(identifier) (scoped_identifier) (field_expression)] @name.reference.call))

; Point { x, y } constructs the type like a call (Self { .. } names nothing new)
(struct_expression
  name: [(type_identifier) (scoped_type_identifier)] @name.reference.call
  (#not-eq? @name.reference.call "Self"))

; Macro arguments are unparsed token trees, yet tests call the code under test inside them:
; assert!(load(&c).is_ok()), assert_eq!(Circle::new(1.0).radius, 1.0). A call that opens the
; token tree is taken (a later one may be a method on anything, so it is left alone).
(macro_invocation
  [
    (token_tree
      .
      (identifier) @name.reference.call
      .
      (token_tree))
    (token_tree
      (token_tree
        .
        (identifier) @name.reference.call
        .
        (token_tree)))
  ])

(macro_invocation
  [
    (token_tree
      .
      (identifier) @reference.receiver
      .
      (identifier) @name.reference.call
      .
      (token_tree))
    (token_tree
      (token_tree
        .
        (identifier) @reference.receiver
        .
        (identifier) @name.reference.call
        .
        (token_tree)))
  ])

; impl Trait for Type
(impl_item
  trait: [
    (type_identifier) @name.reference.inherit
    (scoped_type_identifier) @name.reference.inherit
    (generic_type type: [(type_identifier) (scoped_type_identifier)] @name.reference.inherit)
  ])

; trait Shape: Clone + fmt::Debug (supertraits)
(trait_item
  bounds: (trait_bounds
    [
      (type_identifier) @name.reference.inherit
      (scoped_type_identifier) @name.reference.inherit
      (generic_type type: [(type_identifier) (scoped_type_identifier)] @name.reference.inherit)
    ]))

; -- imports (one match per bound name) --------------------------------------------------------
; A path's last segment is the imported name, the rest its module. Several @import.from nodes
; in one match are the segments of a nested use list (`use a::{b::{c}}` → a, b).

; use foo;
(use_declaration
  argument: (identifier) @import.module)

; use a::b::C;
(use_declaration
  argument: (scoped_identifier
    path: (_) @import.from
    name: (identifier) @import.name))

; use a::b as c;
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier
      path: (_) @import.from
      name: (identifier) @import.name)
    alias: (identifier) @import.alias))

(use_declaration
  argument: (use_as_clause
    path: (identifier) @import.module
    alias: (identifier) @import.alias))

; use a::*;
(use_declaration
  argument: (use_wildcard
    [(identifier) (scoped_identifier) (crate) (super) (self)] @import.from) @import.star)

; use a::{b, c as d, e::f, self, g::*};
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.from
    list: (use_list
      [
        (identifier) @import.name
        (use_as_clause
          path: (identifier) @import.name
          alias: (identifier) @import.alias)
        (scoped_identifier
          path: (_) @import.from
          name: (identifier) @import.name)
        (use_wildcard
          [(identifier) (scoped_identifier)] @import.from) @import.star
      ])))

; use a::{self} / use a::{self as b} binds the module a itself
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list
      [
        (self)
        (use_as_clause
          path: (self)
          alias: (identifier) @import.alias)
      ])))

; use a::{b::{c, d as e}} (one level of nesting; deeper lists are rare)
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.from
    list: (use_list
      (scoped_use_list
        path: (_) @import.from
        list: (use_list
          [
            (identifier) @import.name
            (use_as_clause
              path: (identifier) @import.name
              alias: (identifier) @import.alias)
          ])))))

; mod name; loads name.rs / name/mod.rs
(mod_item
  name: (identifier) @import.module
  !body)

; extern crate serde [as s];
(extern_crate_declaration
  name: (identifier) @import.module
  alias: (identifier)? @import.alias)
