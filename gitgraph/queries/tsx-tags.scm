; inherits: typescript
; TSX tags for gitgraph: the TypeScript patterns (the line above makes gitgraph prepend
; typescript-tags.scm) followed by the JSX patterns below. Capture names: see README.md here.

; -- JSX (tsx only) ----------------------------------------------------------------------------

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
