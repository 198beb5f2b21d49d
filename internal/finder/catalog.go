package finder

import (
	"context"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
)

// Tool is a hand-written tool: its entry in tools/list, as JSON (the
// registry compacts it once), whether it only reads, and what runs it.
// Definition and function stand in one row, so that neither can be added
// without the other.
type Tool struct {
	Name     string
	ReadOnly bool
	JSON     string
	// Run runs the tool with arguments already checked against its input
	// schema (as the tool executor decodes them: strings, booleans,
	// rawjson.Numeral, []any) and returns the CallToolResult, or the error
	// to report as the tool's: Memos' own are *memos.Error.
	Run func(f *Finder, ctx context.Context, args map[string]any, m Memos) ([]byte, error)
}

// Tools returns the hand-written tools. Descriptions are short: every
// byte here is in every client's context.
func Tools() []Tool { return tools }

// reads is the annotations of a tool that only reads; its title is added
// by the definition.
const reads = `"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false`

var tools = []Tool{
	{Name: "memo_search", ReadOnly: true, Run: (*Finder).memoSearch, JSON: `{
	"name":"memo_search","title":"Search memos",
	"description":"Find memos by words, tags, dates, state; newest first. Hits show matched lines or open tasks (else first lines, or a few short memos whole); … marks text left out (cut:true): memo_get_memo reads a memo whole. A hit counts its comments and attachments; the comments of the first five hits that have some are searched for the words too (inComments), not those of memos the search does not find: memo_list_memo_comments reads them. url: a memo's web page, {id} its name after memos/. More: pageToken=nextPageToken.",
	"inputSchema":{"type":"object","additionalProperties":false,"properties":{
		"text":{"type":"string","description":"words, all required, any case"},
		"tags":{"type":"array","items":{"type":"string"},"description":"work also matches work/meetings"},
		"tagMatch":{"type":"string","enum":["any","all"]},
		"withoutTags":{"type":"array","items":{"type":"string"}},
		"on":{"type":"string","description":"YYYY-MM-DD, as from and to (included)"},
		"from":{"type":"string"},
		"to":{"type":"string"},
		"when":{"type":"string","enum":["today","yesterday","this_week","last_week","this_month","last_month","on_this_day"],"description":"weeks start Monday; on_this_day: this date in past years"},
		"lastDays":{"type":"integer","description":"N days up to today"},
		"timezone":{"type":"string","description":"IANA, e.g. Europe/Paris; default the server's, else UTC"},
		"pinned":{"type":"boolean"},
		"visibility":{"type":"string","enum":["PRIVATE","PROTECTED","PUBLIC"]},
		"openTasks":{"type":"boolean"},
		"scope":{"type":"string","enum":["mine","all"],"description":"default mine"},
		"state":{"type":"string","enum":["NORMAL","ARCHIVED","BOTH"],"description":"default NORMAL; BOTH marks archived hits archived:true"},
		"pageSize":{"type":"integer","description":"1 to 50, default 10"},
		"pageToken":{"type":"string"}}},
	"annotations":{"title":"Search memos",` + reads + `},
	"_meta":{"calls":["GET ` + memos.RouteCurrentUser + `","GET ` + memos.RouteMemos + `","GET ` + memos.RouteMemoComments + `"]}}`},

	{Name: "tag_list", ReadOnly: true, Run: (*Finder).tagList, JSON: `{
	"name":"tag_list","title":"List tags",
	"description":"Your tags with how many memos carry each, most used first. A parent (work of work/meetings) counts the memos that write it, not those that have it only through a child.",
	"inputSchema":{"type":"object","additionalProperties":false,"properties":{
		"limit":{"type":"integer","description":"1 to 500, default 100"}}},
	"annotations":{"title":"List tags",` + reads + `},
	"_meta":{"calls":["GET ` + memos.RouteCurrentUser + `","GET ` + memos.RouteUserStats + `","GET ` + memos.RouteMemos + `"]}}`},

	{Name: "search", ReadOnly: true, Run: (*Finder).search, JSON: `{
	"name":"search","title":"Search",
	"description":"Search your memos: every word must occur; #tag words match tags. Returns ids for fetch.",
	"inputSchema":{"type":"object","additionalProperties":false,"required":["query"],"properties":{
		"query":{"type":"string"}}},
	"annotations":{"title":"Search",` + reads + `},
	"_meta":{"calls":["GET ` + memos.RouteCurrentUser + `","GET ` + memos.RouteMemos + `"]}}`},

	{Name: "fetch", ReadOnly: true, Run: (*Finder).fetch, JSON: `{
	"name":"fetch","title":"Fetch",
	"description":"A memo's whole text by its id, from search.",
	"inputSchema":{"type":"object","additionalProperties":false,"required":["id"],"properties":{
		"id":{"type":"string"}}},
	"annotations":{"title":"Fetch",` + reads + `},
	"_meta":{"calls":["GET ` + memos.RouteMemo + `","GET ` + memos.RouteCurrentUser + `"]}}`},

	{Name: "attachment_read", ReadOnly: true, Run: (*Finder).attachmentRead, JSON: `{
	"name":"attachment_read","title":"Read attachment",
	"description":"An attachment's contents: an image as an image (Memos' thumbnail when it has one, up to 1 MB), a text file as text (up to 256 KB).",
	"inputSchema":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
		"name":{"type":"string","description":"attachments/{id}"}}},
	"outputSchema":{"type":"object","properties":{
		"name":{"type":"string"},"filename":{"type":"string"},"type":{"type":"string"},"size":{"type":"integer"},
		"memo":{"type":"string"},"returned":{"type":"string"},"bytes":{"type":"integer"}}},
	"annotations":{"title":"Read attachment",` + reads + `},
	"_meta":{"calls":["GET ` + memos.RouteAttachment + `","GET /file/attachments/{attachment}/{filename}"]}}`},

	{Name: "memo_edit", Run: (*Finder).memoEdit, JSON: `{
	"name":"memo_edit","title":"Edit memo",
	"description":"Change part of a memo's text, keeping what changed since you read it. Give exactly one of append, prepend, replace, check, uncheck. Returns the passage before and after, and undo: the memo_edit arguments that revert the change.",
	"inputSchema":{"type":"object","additionalProperties":false,"required":["memo"],"properties":{
		"memo":{"type":"string","description":"memos/{id} or the id"},
		"append":{"type":"string","description":"added as the last line"},
		"prepend":{"type":"string","description":"added as the first line"},
		"replace":{"type":"object","additionalProperties":false,"required":["old","new"],"properties":{
			"old":{"type":"string","description":"exact passage that occurs once"},"new":{"type":"string"}}},
		"check":{"type":"string","description":"an open task's text"},
		"uncheck":{"type":"string","description":"a checked task's text"},
		"contentHash":{"type":"string","description":"of the text you read: refused if it changed since"}}},
	"outputSchema":{"type":"object","properties":{
		"name":{"type":"string"},"contentHash":{"type":"string"},"change":{"type":"string"},
		"old":{"type":"string"},"new":{"type":"string"},
		"undo":{"type":"object","description":"memo_edit arguments (with memo) that revert this change"},
		"previousContent":{"type":"string","description":"the whole text before the edit, when under 1,000 bytes"},
		"note":{"type":"string"}}},
	"annotations":{"title":"Edit memo","readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false},
	"_meta":{"calls":["GET ` + memos.RouteMemo + `","PATCH ` + memos.RouteMemo + `"]}}`},
}
