// Command emptygo is the empty Go program of `make bench`: it is served
// through the gateway's own bridge and entry module, and answers every
// request with the same ANSWER_BYTES bytes (the bench sets it to the size
// of the gateway's tools/list answer). Built for js/wasm as the gateway is
// built, it shows what Go and the bridge cost apart from the gateway's
// work: its wasm size, its cold start and its latency.
package main

import (
	"bytes"
	"context"
	"strconv"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/bridge"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

func main() {
	n, _ := strconv.Atoi(bridge.Getenv("ANSWER_BYTES"))
	answer := bytes.Repeat([]byte{' '}, n)
	header := web.Header{"content-type": "application/json"}
	bridge.Serve(web.HandlerFunc(func(context.Context, *web.Request) *web.Response {
		return &web.Response{Status: 200, Header: header, Body: answer}
	}), 1<<20)
}
