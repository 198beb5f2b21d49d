// Command emptygo is the empty Go program of `make bench`: it is served
// through the gateway's own bridge and entry module, and answers every
// request with the same ANSWER_BYTES bytes (the bench sets it to the size
// of the gateway's tools/list answer). Built for js/wasm as the gateway is
// built, it shows what Go and the bridge cost apart from the gateway's
// work: its wasm size, its cold start and its latency.
//
// With CHECK_URL set, it first asks that Memos whose the request's token is
// (GET /api/v1/auth/me with the request's Authorization), as the gateway's
// check of the caller does, and answers once Memos has: the empty program
// with the one upstream request the gateway's first answer needs, made in
// series. The setting is not MEMOS_URL, so that the entry module does not
// send the gateway's check ahead of it (worker.mjs, earlyCheck).
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
	check := bridge.Getenv("CHECK_URL")
	fetcher := bridge.Fetcher{MaxBytes: 1 << 20}
	bridge.Serve(web.HandlerFunc(func(ctx context.Context, req *web.Request) *web.Response {
		if check != "" && req.Path() == "/mcp" {
			ask := &web.Request{Method: "GET", URL: check + "/api/v1/auth/me",
				Header: web.Header{"accept": "application/json", "authorization": req.Header.Get("authorization")}}
			if resp, err := fetcher.Do(ctx, ask); err != nil || resp.Status != 200 {
				return &web.Response{Status: 502, Header: header, Body: []byte(`{"error":"the check failed"}`)}
			}
		}
		return &web.Response{Status: 200, Header: header, Body: answer}
	}), 1<<20)
}
