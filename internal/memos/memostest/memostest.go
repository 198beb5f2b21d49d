// Package memostest is a fake Memos for the tests of the packages that
// read Memos through internal/memos (resources, prompts, the MCP handler): a fixed set of memos, attachments and tags, answered as Memos
// v0.30.0 answers them, and a record of every request.
package memostest

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Base is the fake instance's URL.
const Base = "https://memos.example"

// Tokens the fake knows: Token is alice's; Deleted is refused as a deleted
// token is (401); Busy is asked to wait 42 seconds (429). Any other token,
// and none, is an anonymous visitor.
const (
	Token   = "Bearer abc"
	Deleted = "Bearer deleted"
	Busy    = "Bearer busy"
)

// Memos is the fake instance; it implements web.Doer.
type Memos struct {
	// Lockdown is the clients' LOCKDOWN.
	Lockdown bool

	mu       sync.Mutex
	requests []string
}

// Client returns a Memos client that reads from m, with responses capped
// at maxBytes.
func (m *Memos) Client(maxBytes int) *memos.Client {
	return memos.New(memos.Options{URL: Base, MaxResponseBytes: maxBytes, Timeout: time.Second, Lockdown: m.Lockdown}, m)
}

// Requests returns the path and query of every request so far, in order.
func (m *Memos) Requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.requests...)
}

// Do answers a request as the instance would.
func (m *Memos) Do(_ context.Context, req *web.Request) (*web.Response, error) {
	target := strings.TrimPrefix(req.URL, Base)
	m.mu.Lock()
	m.requests = append(m.requests, target)
	m.mu.Unlock()
	path, query, _ := strings.Cut(target, "?")
	q, _ := url.ParseQuery(query)
	auth := req.Header.Get("authorization")
	switch auth {
	case Deleted:
		return answer(401, `{"code": 16, "message": "authentication required"}`), nil
	case Busy:
		resp := answer(429, `{"code":8,"message":"rate limit exceeded","details":[]}`)
		resp.Header["retry-after"] = "42"
		return resp, nil
	}
	alice := auth == Token
	switch {
	case path == "/api/v1/auth/me" && alice:
		return answer(200, `{"user":{"name":"users/alice","username":"alice","role":"ADMIN"}}`), nil
	case path == "/api/v1/auth/me":
		return answer(401, `{"code": 16, "message": "authentication required"}`), nil
	case path == "/api/v1/memos":
		return listMemos(alice, q), nil
	case strings.HasPrefix(path, "/api/v1/memos/"):
		if memo, ok := aliceMemos[strings.TrimPrefix(path, "/api/v1/memos/")]; ok && (alice || strings.Contains(memo, `"PUBLIC"`)) {
			return answer(200, memo), nil
		}
		return answer(404, `{"code":5,"message":"memo not found","details":[]}`), nil
	case path == "/api/v1/users/alice:getStats" && alice:
		return answer(200, stats), nil
	case strings.HasPrefix(path, "/api/v1/attachments/") && alice:
		if a, ok := attachments[strings.TrimPrefix(path, "/api/v1/attachments/")]; ok {
			return answer(200, a.meta), nil
		}
		return answer(404, `{"code":5,"message":"attachment not found","details":[]}`), nil
	case strings.HasPrefix(path, "/file/attachments/"):
		id, _, _ := strings.Cut(strings.TrimPrefix(path, "/file/attachments/"), "/")
		a, ok := attachments[id]
		switch {
		case !ok:
			return &web.Response{Status: 404, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"message":"attachment not found"}`)}, nil
		case !alice:
			return &web.Response{Status: 401, Header: web.Header{"content-type": "application/json"}, Body: []byte(`{"message":"unauthorized access"}`)}, nil
		}
		return &web.Response{Status: 200, Header: web.Header{"content-type": a.fileType}, Body: []byte(a.file)}, nil
	case strings.HasPrefix(path, "/api/v1/"):
		return answer(401, `{"code": 16, "message": "authentication required"}`), nil
	}
	return answer(404, `{"code":5,"message":"Not Found","details":[]}`), nil
}

func answer(status int, body string) *web.Response {
	return &web.Response{Status: status, Header: web.Header{"content-type": "application/json"}, Body: []byte(body)}
}

// listMemos answers ListMemos: alice's memos two to a page, or the public
// memo for anyone else.
func listMemos(alice bool, q url.Values) *web.Response {
	switch {
	case !alice:
		return answer(200, `{"memos":[`+aliceMemos["m2"]+`],"nextPageToken":""}`)
	case q.Get("filter") != `creator == "users/alice"`:
		return answer(400, `{"code":3,"message":"invalid filter","details":[]}`)
	case q.Get("pageToken") == "":
		return answer(200, `{"memos":[`+aliceMemos["m1"]+`,`+aliceMemos["m2"]+`],"nextPageToken":"CAEQAg=="}`)
	case q.Get("pageToken") == "CAEQAg==":
		return answer(200, `{"memos":[`+aliceMemos["m3"]+`],"nextPageToken":""}`)
	}
	return answer(400, `{"code":3,"message":"invalid page token","details":[]}`)
}

// aliceMemos are alice's memos by id.
var aliceMemos = map[string]string{
	"m1": `{"name":"memos/m1","state":"NORMAL","creator":"users/alice","createTime":"2026-03-14T09:30:00Z","updateTime":"2026-03-15T10:00:00Z",` +
		`"content":"# Boiler repair\nCalled the plumber. #work/boiler\n- [ ] pay the invoice","visibility":"PRIVATE","tags":["work/boiler"],"pinned":true,` +
		`"attachments":[{"name":"attachments/a1","filename":"notes.txt","type":"text/plain","size":"11","memo":"memos/m1","motionMedia":null},` +
		`{"name":"attachments/a2","filename":"pic.png","type":"image/png","size":"8","memo":"memos/m1","motionMedia":null}],` +
		`"relations":[],"reactions":[],"property":{"hasTaskList":true,"hasIncompleteTasks":true},"snippet":"Boiler repair Called the plumber."}`,
	"m2": `{"name":"memos/m2","state":"NORMAL","creator":"users/alice","createTime":"2026-04-01T08:00:00Z","updateTime":"2026-04-01T08:00:00Z",` +
		`"content":"Plant the tulips #home","visibility":"PUBLIC","tags":["home"],"pinned":false,"attachments":[],"relations":[],"reactions":[],"snippet":"Plant the tulips"}`,
	"m3": `{"name":"memos/m3","state":"NORMAL","creator":"users/alice","createTime":"2026-03-16T12:00:00Z","updateTime":"2026-03-16T12:00:00Z",` +
		`"content":"Paid: \"done\"","visibility":"PROTECTED","tags":[],"pinned":false,"parent":"memos/m1","attachments":[],"snippet":"Paid"}`,
}

// attachment is one attachment: its metadata and its file.
type attachment struct {
	meta, fileType, file string
}

var attachments = map[string]attachment{
	"a1":    {`{"name":"attachments/a1","filename":"notes.txt","type":"text/plain","size":"11","memo":"memos/m1","motionMedia":null}`, "text/plain; charset=utf-8", "hello world"},
	"a2":    {`{"name":"attachments/a2","filename":"pic.png","type":"image/png","size":"8","memo":"memos/m1","motionMedia":null}`, "image/png", "\x89PNG\r\n\x1a\n"},
	"big":   {`{"name":"attachments/big","filename":"big.bin","type":"application/octet-stream","size":"99999999","motionMedia":null}`, "application/octet-stream", ""},
	"ext":   {`{"name":"attachments/ext","filename":"doc.pdf","externalLink":"https://example.com/doc.pdf","type":"application/pdf","size":"0","motionMedia":null}`, "", ""},
	"weird": {`{"name":"attachments/weird","filename":"../x?y#z","type":"text/plain","size":"2","motionMedia":null}`, "text/plain", "ok"},
	"dot":   {`{"name":"attachments/dot","filename":"..","type":"application/json","size":"2","motionMedia":null}`, "application/json", "{}"},
}

// stats are alice's user statistics, with the per-memo timestamps Memos
// sends along.
const stats = `{"name":"users/alice/stats","memoTypeStats":{"linkCount":0,"codeCount":0,"todoCount":1,"undoCount":1},` +
	`"tagCount":{"work":5,"work/boiler":2,"home":3,"Workshop":1,"travel":4},` +
	`"memoCreatedTimestamps":["2026-03-14T09:30:00Z","2026-04-01T08:00:00Z"],"pinnedMemos":["memos/m1"],"totalMemoCount":3}`
