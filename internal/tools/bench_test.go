package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
	"github.com/tidwall/gjson"
)

// cannedDoer answers every request with the same response, at no cost.
type cannedDoer struct{ resp *web.Response }

func (d cannedDoer) Do(context.Context, *web.Request) (*web.Response, error) { return d.resp, nil }

// benchMemo is a memo as Memos v0.30.0 answers it: an attachment with a
// null motionMedia, protojson's spacing.
const benchMemo = `{"name": "memos/7dWjQzK3mGsEKdKtcqKqBz", "state": "NORMAL", "creator": "users/admin", ` +
	`"createTime": "2026-11-29T11:12:57Z", "updateTime": "2026-11-29T11:12:57Z", "displayTime": "2026-11-29T11:12:57Z", ` +
	`"content": "Ramen at #tokyo with friends, see the photo.", "visibility": "PRIVATE", "tags": ["tokyo"], "pinned": false, ` +
	`"attachments": [{"name": "attachments/Hk2mQ9", "createTime": "2026-11-29T11:12:57Z", "filename": "ramen.jpg", "content": "", ` +
	`"externalLink": "", "type": "image/jpeg", "size": "48213", "memo": "memos/7dWjQzK3mGsEKdKtcqKqBz", "motionMedia": null}], ` +
	`"relations": [], "reactions": [], "property": {"hasLink": false, "hasTaskList": false, "hasCode": false, "hasIncompleteTasks": false, "title": ""}, ` +
	`"snippet": "Ramen at #tokyo with friends, see the photo.", "location": {"placeholder": "Tokyo", "latitude": 35.68, "longitude": 139.69}}`

func benchmarkCall(b *testing.B, tool, args, answer string) {
	c := newTable(testConfig(), cannedDoer{&web.Response{Status: 200, Header: web.Header{"content-type": "application/json"}, Body: []byte(answer)}})
	a := rawjson.Parse(args)
	ctx := context.Background()
	if res, _, _, _ := run(c, ctx, tool, a, "Bearer memos_pat_x"); gjson.GetBytes(res, "isError").Bool() {
		b.Fatalf("tool error: %s", res)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run(c, ctx, tool, a, "Bearer memos_pat_x")
	}
}

// Validation, request building and result shaping of typical calls; the
// upstream answers instantly.
func BenchmarkCall(b *testing.B) {
	b.Run("get_memo", func(b *testing.B) {
		benchmarkCall(b, "memo_get_memo", `{"memo":"memos/7dWjQzK3mGsEKdKtcqKqBz"}`, benchMemo)
	})
	b.Run("update_memo", func(b *testing.B) {
		benchmarkCall(b, "memo_update_memo",
			`{"memo":"memos/7dWjQzK3mGsEKdKtcqKqBz","body":{"content":"Ramen at #tokyo, again.","visibility":"PROTECTED","location":{"placeholder":"Tokyo","latitude":35.68,"longitude":139.69}}}`,
			benchMemo)
	})
	b.Run("list_memos_10", func(b *testing.B) {
		page := `{"memos": [` + strings.Repeat(benchMemo+",", 9) + benchMemo + `], "nextPageToken": "CAoQAQ=="}`
		benchmarkCall(b, "memo_list_memos", `{"filter":"\"tokyo\" in tags && created_ts > now - duration(\"720h\")","pageSize":10,"orderBy":"create_time desc"}`, page)
	})
	// A large result: 1,000 memos of about 1.4 KB, as make bench's row 8 lists.
	b.Run("list_memos_1000", func(b *testing.B) {
		long := strings.Replace(benchMemo, "see the photo.", "see the photo. "+strings.Repeat("Lorem ipsum dolor sit amet. ", 8), 1)
		page := `{"memos": [` + strings.Repeat(long+",", 999) + long + `], "nextPageToken": "CAoQAQ=="}`
		benchmarkCall(b, "memo_list_memos", `{"pageSize":1000}`, page)
	})
}
