//go:build tools

// Package memosbin pins the Memos server that the end-to-end tests and
// `make dev` run. It is its own module so that Memos' many dependencies stay
// out of the gateway's go.mod.
package memosbin

import _ "github.com/usememos/memos/cmd/memos"
