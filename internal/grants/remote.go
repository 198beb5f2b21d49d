package grants

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/uri"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/web"
)

// Remote is the Store of the Durable Object namespace that Doer reaches:
// each key is the object named by the request's path (the entry module
// routes it), and the body is one operation in JSON. store.mjs answers it.
type Remote struct {
	Doer web.Doer
}

// timeout bounds one operation: an object in the same location answers in
// milliseconds, and one that cannot is treated as unreachable.
const timeout = 5 * time.Second

// MaxAnswerBytes is the most an answer of the store may hold; the Doer
// should refuse longer ones.
const MaxAnswerBytes = 256

func (r Remote) Advance(ctx context.Context, key string, from int64, until time.Time) (Step, error) {
	a, err := r.do(ctx, key, `{"op":"advance","from":`+strconv.FormatInt(from, 10)+`,"until":`+unix(until)+`}`)
	return Step{Moved: a.moved, Value: a.value, Age: time.Duration(a.age) * time.Second}, err
}

func (r Remote) End(ctx context.Context, key string, until time.Time) error {
	_, err := r.do(ctx, key, `{"op":"end","until":`+unix(until)+`}`)
	return err
}

func (r Remote) Get(ctx context.Context, key string) (int64, error) {
	a, err := r.do(ctx, key, `{"op":"get"}`)
	return a.value, err
}

func (r Remote) Hit(ctx context.Context, key string, limit int, window time.Duration) (time.Duration, error) {
	a, err := r.do(ctx, key, `{"op":"hit","limit":`+strconv.Itoa(limit)+`,"window":`+strconv.FormatInt(int64(window/time.Second), 10)+`}`)
	return time.Duration(a.retryAfter) * time.Second, err
}

type answer struct {
	moved                  bool
	value, retryAfter, age int64
}

// do sends one operation on key and reads the object's answer; anything
// but a well-formed answer is ErrUnavailable.
func (r Remote) do(ctx context.Context, key, op string) (answer, error) {
	resp, err := r.Doer.Do(ctx, &web.Request{
		Method: "POST", URL: "https://grants.invalid/" + uri.PathEscape(key),
		Header: web.Header{"content-type": "application/json"}, Body: []byte(op), Timeout: timeout,
	})
	if err != nil {
		return answer{}, errors.Join(ErrUnavailable, err)
	}
	if resp.Status != 200 || len(resp.Body) > MaxAnswerBytes || !rawjson.ValidBytes(resp.Body) {
		return answer{}, errors.Join(ErrUnavailable, errors.New("it answered "+strconv.Itoa(resp.Status)))
	}
	doc := rawjson.ParseBytes(resp.Body)
	value, retry, age := doc.Get("value"), doc.Get("retryAfter"), doc.Get("age")
	if value.Kind != rawjson.Number || retry.Exists() && retry.Kind != rawjson.Number || age.Exists() && age.Kind != rawjson.Number {
		return answer{}, errors.Join(ErrUnavailable, errors.New("its answer has no value"))
	}
	return answer{moved: doc.Get("moved").Bool(), value: value.Int(), retryAfter: retry.Int(), age: age.Int()}, nil
}

func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
