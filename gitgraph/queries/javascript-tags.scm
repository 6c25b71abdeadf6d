; JavaScript (and JSX) tags for gitgraph. Capture names: see README.md here.

; -- definitions -------------------------------------------------------------------------------

(class_declaration
  name: (identifier) @name.definition.class) @definition.class

; const A = class {}
(variable_declarator
  name: (identifier) @name.definition.class
  value: (class)) @definition.class

[
  (function_declaration
    name: (identifier) @name.definition.function)
  (generator_function_declaration
    name: (identifier) @name.definition.function)
] @definition.function

; const f = () => {} / const f = function () {}: a function named f
(variable_declarator
  name: (identifier) @name.definition.function
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; class members (methods become Class.m by nesting)
(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name.definition.function)
    @definition.function)

; handle = () => {} as a class field
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name.definition.function
    value: [(arrow_function) (function_expression)]) @definition.function)

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
    (variable_declaration
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

; Foo.prototype.bar = function () {} → Foo.bar
(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @definition.parent
      property: (property_identifier) @_prototype)
    property: (property_identifier) @name.definition.function)
  right: [(arrow_function) (function_expression)]
  (#eq? @_prototype "prototype")) @definition.function

; exports.bar = function () {} / module.exports.bar = () => {}
(assignment_expression
  left: (member_expression
    object: (identifier) @_exports
    property: (property_identifier) @name.definition.function)
  right: [(arrow_function) (function_expression)]
  (#eq? @_exports "exports")) @definition.function

(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports)
    property: (property_identifier) @name.definition.function)
  right: [(arrow_function) (function_expression)]
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @definition.function

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

; <Widget /> and <ui.Button> use a component like a call; lower-case <div> is a DOM element
([
  (jsx_opening_element
    name: (identifier) @name.reference.call)
  (jsx_self_closing_element
    name: (identifier) @name.reference.call)
 ]
 (#match? @name.reference.call "^[A-Z]"))

[
  (jsx_opening_element
    name: (member_expression) @name.reference.call)
  (jsx_self_closing_element
    name: (member_expression) @name.reference.call)
]

(class_declaration
  (class_heritage
    [(identifier) (member_expression)] @name.reference.inherit))

(class
  (class_heritage
    [(identifier) (member_expression)] @name.reference.inherit))

; -- imports (one match per bound name) --------------------------------------------------------

; import x from './a'
(import_statement
  (import_clause
    (identifier) @import.default)
  source: (string) @import.source)

; import {a, b as c} from './a'
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

; require('./side-effect') and import('./lazy')
(expression_statement
  (call_expression
    function: (identifier) @_require
    arguments: (arguments
      .
      (string) @import.source .))
  (#eq? @_require "require"))

(call_expression
  function: (import)
  arguments: (arguments
    .
    (string) @import.source))
