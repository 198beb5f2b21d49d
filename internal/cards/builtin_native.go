//go:build !js

package cards

import _ "embed"

// builtin is the card, embedded in the native build (the Worker's wasm
// leaves it to the entry module).
//
//go:embed card.html
var builtin []byte
