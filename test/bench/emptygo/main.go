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
//
// With FORWARD_URL set, it is instead a Go program that only forwards
// memo_get_memo, as the JavaScript proxy of `make bench` does: it takes the
// memo's name from the request, asks that Memos for it with the request's
// Authorization, and answers with Memos' answer. It is what any Go program
// pays through this bridge for a call of one upstream request, without
// the gateway's work.
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
	check, forward := bridge.Getenv("CHECK_URL"), bridge.Getenv("FORWARD_URL")
	fetcher := bridge.Fetcher{MaxBytes: 1 << 20}
	bridge.Serve(web.HandlerFunc(func(ctx context.Context, req *web.Request) *web.Response {
		if forward != "" && req.Path() == "/mcp" {
			return forwarded(ctx, fetcher, forward, req, header)
		}
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

// forwarded asks Memos at base for the memo the request's arguments name
// ("memo":"memos/ID", the ID as it is) and answers with Memos' answer.
func forwarded(ctx context.Context, fetcher bridge.Fetcher, base string, req *web.Request, header web.Header) *web.Response {
	_, rest, _ := bytes.Cut(req.Body, []byte(`"memo":"memos/`))
	id, _, _ := bytes.Cut(rest, []byte(`"`))
	ask := &web.Request{Method: "GET", URL: base + "/api/v1/memos/" + string(id),
		Header: web.Header{"accept": "application/json", "authorization": req.Header.Get("authorization")}}
	resp, err := fetcher.Do(ctx, ask)
	if err != nil {
		return &web.Response{Status: 502, Header: header, Body: []byte(`{"error":"the request failed"}`)}
	}
	return &web.Response{Status: resp.Status, Header: header, Body: resp.Body}
}
