package mcp

import (
	"context"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/jsonrpc"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// A tool call that deletes for good is confirmed by the person first, where
// the protocol lets the server ask: in 2026-07-28, with a multi round-trip
// request, when the client declares elicitation. The call is answered with
// an input_required result whose one request is a form of one yes-or-no
// field; the client asks the person and sends the call again with the
// answer under inputResponses. Without elicitation the call runs as it
// would (Claude declares none): the tool's description and its result say
// what a delete takes. Earlier versions ask through a request of the
// server's own on an SSE stream, which this stateless endpoint does not
// open.

// confirmKey names the one input request, and the field of its form.
const confirmKey = "confirm"

// confirmation is what toolsCall does about a call's confirmation: run it,
// or answer with reply.
func (h *Handler) confirmation(ctx context.Context, c *call, tools Tools, name string, args rawjson.Value) (reply, bool) {
	if !c.modern || !c.msg.Params.Get("_meta").Get(metaClientCaps).Get("elicitation").Exists() {
		return reply{}, false
	}
	// An answer is read first: the question (which may read Memos) is
	// asked for on the first round only.
	answer := c.msg.Params.Get("inputResponses").Get(confirmKey)
	switch {
	case answer.Exists() && (answer.Get("action").Str != "accept" || answer.Get("content").Get(confirmKey).Kind != rawjson.True):
		return h.ok(c, toolError("the person did not confirm "+name+": nothing was done")), true
	case answer.Exists():
		return reply{}, false
	}
	question := tools.Confirm(ctx, name, args, c.req.Header.Get("authorization"))
	if question == "" {
		return reply{}, false
	}
	return h.inputRequired(c, question), true
}

// inputRequired answers c with the form that asks question.
func (h *Handler) inputRequired(c *call, question string) reply {
	b := []byte(`{"resultType":"input_required","_meta":{"` + metaServerInfo + `":`)
	b = append(b, h.serverInfo...)
	b = append(b, `},"inputRequests":{"`+confirmKey+`":{"method":"elicitation/create","params":{"mode":"form","message":`...)
	b = rawjson.AppendString(b, question)
	b = append(b, `,"requestedSchema":{"type":"object","properties":{"`+confirmKey+`":{"type":"boolean","title":"Go ahead"}},"required":["`+confirmKey+`"]}}}}}`...)
	return reply{200, jsonrpc.Result(c.msg.ID, b)}
}
