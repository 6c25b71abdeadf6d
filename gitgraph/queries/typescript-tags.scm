; TypeScript tags for gitgraph. Capture names: see README.md here.
; tsx-tags.scm is this file plus JSX patterns (the typescript grammar has no JSX nodes);
; tests/test_tags.py checks that the two do not drift apart.

; -- definitions -------------------------------------------------------------------------------

[
  (class_declaration
    name: (type_identifier) @name.definition.class)
  (abstract_class_declaration
    name: (type_identifier) @name.definition.class)
] @definition.class

; const A = class {}
(variable_declarator
  name: (identifier) @name.definition.class
  value: (class)) @definition.class

(interface_declaration
  name: (type_identifier) @name.definition.interface) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name.definition.type) @definition.type

(enum_declaration
  name: (identifier) @name.definition.enum) @definition.enum

; namespace A.B {} / module M {} (a quoted `declare module "x"` names a package, not a symbol)
[
  (internal_module
    name: [(identifier) (nested_identifier)] @name.definition.module)
  (module
    name: [(identifier) (nested_identifier)] @name.definition.module)
] @definition.module

[
  (function_declaration
    name: (identifier) @name.definition.function)
  (generator_function_declaration
    name: (identifier) @name.definition.function)
] @definition.function

; declare function f(): void, and functions declared in namespaces of .d.ts files
; (a bare signature elsewhere is an overload: the implementation that follows is the symbol)
(ambient_declaration
  (function_signature
    name: (identifier) @name.definition.function) @definition.function)

(statement_block
  (function_signature
    name: (identifier) @name.definition.function) @definition.function)

(statement_block
  (export_statement
    declaration: (function_signature
      name: (identifier) @name.definition.function) @definition.function))

; const f = () => {} / const f = function () {}: a function named f
(variable_declarator
  name: (identifier) @name.definition.function
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; class members (methods become Class.m by nesting); a method_signature in a class body is an
; overload, so the implementation that follows is the symbol
(class_body
  [
    (method_definition
      name: [(property_identifier) (private_property_identifier)] @name.definition.function)
    (abstract_method_signature
      name: [(property_identifier) (private_property_identifier)] @name.definition.function)
  ] @definition.function)

; handle = () => {} as a class field
(class_body
  (public_field_definition
    name: [(property_identifier) (private_property_identifier)] @name.definition.function
    value: [(arrow_function) (function_expression)]) @definition.function)

(interface_body
  (method_signature
    name: (property_identifier) @name.definition.function) @definition.function)

; methods of an object literal bound to a top-level name: const api = { get() {} } → api.get
(program
  [
    (lexical_declaration
      (variable_declarator
        name: (identifier) @definition.parent
        value: (object
          [
            (method_definition
              name: (property_identifier) @name.definition.function) @definition.function
            (pair
              key: (property_identifier) @name.definition.function
              value: [(arrow_function) (function_expression)]) @definition.function
          ])))
    (export_statement
      declaration: (lexical_declaration
        (variable_declarator
          name: (identifier) @definition.parent
          value: (object
            [
              (method_definition
                name: (property_identifier) @name.definition.function) @definition.function
              (pair
                key: (property_identifier) @name.definition.function
                value: [(arrow_function) (function_expression)]) @definition.function
            ]))))
  ])

; test blocks (jest, mocha, vitest): describe('Cart', () => { it('adds', ...) }) → 'Cart'.'adds'.
; The name keeps its quotes, so a suite named like the class it tests cannot shadow that class.
; A @test capture marks the definition as a test (there is no attribute to mark it).
(call_expression
  function: [
    (identifier) @_suite
    (member_expression
      object: (identifier) @_suite
      property: (property_identifier) @_modifier)
  ]
  arguments: (arguments
    .
    (string) @name.definition.function
    .
    [(arrow_function) (function_expression)])
  (#any-of? @_suite "describe" "context" "suite"))
  @definition.function

; it('works', fn), it.only(...), test.each(table)('adds %i', fn)
(call_expression
  function: [
    (identifier) @test
    (member_expression
      object: (identifier) @test
      property: (property_identifier) @_modifier)
    (call_expression
      function: (member_expression
        object: (identifier) @test
        property: (property_identifier) @_modifier))
  ]
  arguments: (arguments
    .
    (string) @name.definition.function
    .
    [(arrow_function) (function_expression)])
  (#any-of? @test "it" "test"))
  @definition.function

; -- references --------------------------------------------------------------------------------

(call_expression
  function: [(identifier) (member_expression)] @name.reference.call
  (#not-eq? @name.reference.call "require"))

(new_expression
  constructor: [(identifier) (member_expression)] @name.reference.call)

; class A extends B implements I, ns.J, K<T>
(class_heritage
  (extends_clause
    value: [(identifier) (member_expression)] @name.reference.inherit))

(class_heritage
  (implements_clause
    [
      (type_identifier) @name.reference.inherit
      (nested_type_identifier) @name.reference.inherit
      (generic_type
        name: [(type_identifier) (nested_type_identifier)] @name.reference.inherit)
    ]))

; interface I extends A, ns.B, C<T>
(extends_type_clause
  type: [
    (type_identifier) @name.reference.inherit
    (nested_type_identifier) @name.reference.inherit
    (generic_type
      name: [(type_identifier) (nested_type_identifier)] @name.reference.inherit)
  ])

; -- imports (one match per bound name) --------------------------------------------------------

; import x from './a'
(import_statement
  (import_clause
    (identifier) @import.default)
  source: (string) @import.source)

; import {a, b as c} from './a' (also `import type {...}`)
(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @import.name
        alias: (_)? @import.alias)))
  source: (string) @import.source)

; import * as ns from './a'
(import_statement
  (import_clause
    (namespace_import
      (identifier) @import.alias))
  source: (string) @import.source)

; import fs = require('fs')
(import_statement
  (import_require_clause
    (identifier) @import.alias
    source: (string) @import.source))

; import './polyfill'
(import_statement
  .
  source: (string) @import.source)

; export {a, b as c} from './b'
(export_statement
  (export_clause
    (export_specifier
      name: (_) @import.name
      alias: (_)? @import.alias))
  source: (string) @import.source)

; export * from './b'
(export_statement
  "*" @import.star
  source: (string) @import.source)

; export * as ns from './b'
(export_statement
  (namespace_export
    (identifier) @import.alias)
  source: (string) @import.source)

; const m = require('m')
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments
      .
      (string) @import.source .))
  (#eq? @_require "require"))

; const {a, b: c} = require('m')
(variable_declarator
  name: (object_pattern
    [
      (shorthand_property_identifier_pattern) @import.name
      (pair_pattern
        key: (property_identifier) @import.name
        value: (identifier) @import.alias)
    ])
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments
      .
      (string) @import.source .))
  (#eq? @_require "require"))

; import('./lazy')
(call_expression
  function: (import)
  arguments: (arguments
    .
    (string) @import.source))
