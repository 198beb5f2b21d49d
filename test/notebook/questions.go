package notebook

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/memos-mcp-edge/memos-mcp-edge/test/harness"
)

// Each question is answered as a model would: one find call, then reading
// the hits one by one (memo_get_memo, as a host that allows tools alone
// does, or memo_list_memo_comments where the answer is in a comment) until every fact the answer needs has been seen in the answers'
// text items, which are what a model reads. The gateway's find call is its
// finding tool; the built-in's is the best single filtered memo_list_memos
// call a model could write. Both find calls ask for 10 memos (the
// gateway's default) and the same words. Bytes are whole HTTP answer
// bodies, as sent.

// maxReads bounds the reads after the find call, per question.
const maxReads = 20

// Question is one question: the facts its answer needs, and the find call
// of each server (a tool and its arguments as JSON).
type Question struct {
	Text             string
	Facts            []string
	Gateway, Builtin string
	Apart            bool   // reported apart: the built-in has no tool for it
	Read             string // the tool that reads a hit: memo_get_memo unless named
}

// Questions are the notebook's questions, the find-then-read ones first.
var Questions = []Question{
	{Text: "the Falcon office's gate and door codes", Facts: []string{"4711", "0815"},
		Gateway: `{"name":"memo_search","arguments":{"text":"gate code"}}`,
		Builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"content.contains(\"gate code\")"}}`},
	{Text: "my open tasks for Falcon (tag work/falcon and its children)", Facts: []string{"send the Falcon report to Ann", "book the review room", "ask Li about the budget"},
		Gateway: `{"name":"memo_search","arguments":{"tags":["work/falcon"],"openTasks":true}}`,
		Builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"(tags.exists(t, t == \"work/falcon\") || tags.exists(t, t.startsWith(\"work/falcon/\"))) && has_incomplete_tasks"}}`},
	{Text: "the boiler's pressure and next service", Facts: []string{"1.5 bar", "March 2027"},
		Gateway: `{"name":"memo_search","arguments":{"text":"boiler pressure"}}`,
		Builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"content.contains(\"boiler\") && content.contains(\"pressure\")"}}`},
	{Text: "what I did on Monday 30 November 2026 (Berlin)", Facts: []string{"printer driver", "lentil soup"},
		Gateway: `{"name":"memo_search","arguments":{"on":"2026-11-30","timezone":"Europe/Berlin"}}`,
		Builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"created_ts >= timestamp(\"2026-11-29T23:00:00Z\") && created_ts < timestamp(\"2026-11-30T23:00:00Z\")"}}`},
	{Text: "what I noted on 29 March 2026 (Berlin, the change to summer time)", Facts: []string{"half past midnight", "asparagus"},
		Gateway: `{"name":"memo_search","arguments":{"on":"2026-03-29","timezone":"Europe/Berlin"}}`,
		Builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"created_ts >= timestamp(\"2026-03-28T23:00:00Z\") && created_ts < timestamp(\"2026-03-29T22:00:00Z\")"}}`},
	// The answer is in a comment, which no filter of Memos' reads: the
	// built-in's hits are read for their comments, one call each.
	{Text: "what the plumber said about the boiler (in a comment)", Facts: []string{"air in the pipes"}, Read: "memo_list_memo_comments",
		Gateway: `{"name":"memo_search","arguments":{"text":"boiler","tags":["home/boiler"]}}`,
		Builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"tags.exists(t, t == \"home/boiler\")"}}`},
	{Text: "where we stayed in Kyoto, and the price", Facts: []string{"Ryokan Sakura", "180 euros"},
		Gateway: `{"name":"memo_search","arguments":{"text":"Kyoto stayed"}}`,
		Builtin: `{"name":"memo_list_memos","arguments":{"pageSize":10,"filter":"content.contains(\"Kyoto\") && content.contains(\"stayed\")"}}`},
	{Text: "my most used tags", Facts: []string{"journal"}, Apart: true,
		Gateway: `{"name":"tag_list","arguments":{}}`,
		Builtin: `{"name":"memo_list_memos","arguments":{"pageSize":1000}}`},
}

// Cost is what answering took: calls, bytes read, whether the first answer
// held every fact, and whether every fact was seen at all.
type Cost struct {
	Calls, Bytes int
	First, All   bool
}

// Answer is what a question cost each server.
type Answer struct {
	Question
	Gateway, Builtin Cost
}

// Ask asks each question of the gateway's MCP endpoint at gateway and of
// Memos' built-in one at builtin, as the user whose Memos token is given.
func Ask(ctx context.Context, gateway, builtin, token string) ([]Answer, error) {
	var out []Answer
	for _, q := range Questions {
		gw, err := solve(ctx, gateway, token, q.Gateway, q.Read, q.Facts)
		if err != nil {
			return nil, fmt.Errorf("the gateway, %s: %w", q.Text, err)
		}
		bi, err := solve(ctx, builtin, token, q.Builtin, q.Read, q.Facts)
		if err != nil {
			return nil, fmt.Errorf("Memos' built-in /mcp, %s: %w", q.Text, err)
		}
		out = append(out, Answer{q, gw, bi})
	}
	return out, nil
}

// solve makes the find call, then reads its hits in order with the read
// tool (memo_get_memo if "") until every fact has been seen in some answer.
func solve(ctx context.Context, url, token, find, read string, facts []string) (Cost, error) {
	if read == "" {
		read = "memo_get_memo"
	}
	client := &http.Client{Timeout: 30 * time.Second}
	header := harness.MCPHeaders(token)
	var c Cost
	var seen strings.Builder // the text items, as a model reads them
	ask := func(params string) ([]byte, error) {
		status, body, err := harness.Post(ctx, client, url, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":`+params+`}`, header)
		if err == nil && (status != 200 || gjson.GetBytes(body, "result.isError").Bool() || !gjson.GetBytes(body, "result").Exists()) {
			err = fmt.Errorf("HTTP %d: %.300s", status, body)
		}
		c.Calls++
		c.Bytes += len(body)
		for _, text := range gjson.GetBytes(body, "result.content.#.text").Array() {
			seen.WriteString(text.String())
		}
		return body, err
	}
	holds := func() bool {
		for _, f := range facts {
			if !strings.Contains(seen.String(), f) {
				return false
			}
		}
		return true
	}
	body, err := ask(find)
	if err != nil {
		return c, err
	}
	c.First = holds()
	hits := Hits(body)
	for i := 0; !holds() && i < len(hits) && i < maxReads; i++ {
		if _, err := ask(`{"name":"` + read + `","arguments":{"memo":` + strconv.Quote(hits[i]) + `}}`); err != nil {
			return c, err
		}
	}
	c.All = holds()
	return c, nil
}

// Hits returns the names of the memos a find call's answer (a JSON-RPC
// response) lists: from its structured content, where the built-in's
// memo_list_memos has them, else from its text, which is JSON for both
// servers' tools.
func Hits(body []byte) []string {
	list := gjson.GetBytes(body, "result.structuredContent.memos")
	if !list.Exists() {
		list = gjson.Get(gjson.GetBytes(body, "result.content.0.text").String(), "memos")
	}
	var names []string
	for _, m := range list.Array() {
		names = append(names, m.Get("name").String())
	}
	return names
}

// Totals sums the find-then-read questions (those not apart): both
// servers' costs, whether every first answer of the gateway held its
// facts, and whether it never needed more calls than the built-in.
func Totals(answers []Answer) (gateway, builtin Cost, first, fewer bool) {
	first, fewer = true, true
	for _, a := range answers {
		if a.Apart {
			continue
		}
		gateway.Calls, gateway.Bytes = gateway.Calls+a.Gateway.Calls, gateway.Bytes+a.Gateway.Bytes
		builtin.Calls, builtin.Bytes = builtin.Calls+a.Builtin.Calls, builtin.Bytes+a.Builtin.Bytes
		first = first && a.Gateway.First
		fewer = fewer && a.Gateway.Calls <= a.Builtin.Calls
	}
	return gateway, builtin, first, fewer
}

// GoalShare is issue 29's byte goal: on the find-then-read questions
// together, the gateway reads at most this share of the built-in's bytes.
const GoalShare = 0.25

// Met reports whether answers meet issue 29's goal: on the find-then-read
// questions, every first answer of the gateway holds its facts, with no
// more calls than the built-in and at most GoalShare of its bytes in total.
func Met(answers []Answer) bool {
	gw, builtin, first, fewer := Totals(answers)
	return len(answers) > 0 && first && fewer && float64(gw.Bytes) <= GoalShare*float64(builtin.Bytes)
}
