//go:build js && wasm

package cards

// builtin is nil in the Worker, whose entry module holds the card.
var builtin []byte
