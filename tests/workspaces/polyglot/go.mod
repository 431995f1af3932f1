module example.com/polyglot

go 1.25

// The node half's dependencies ship Go files of their own (flatted); they are not part of this module.
ignore ./node_modules
