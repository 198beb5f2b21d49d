// Package writes is the one path every write to Memos takes, from the
// generated tools and from memo_edit alike: a plan checked before anything
// is written (the objects a call names exist, are the caller's to use, and
// would not be taken from another memo), one settle after an unclear
// outcome (a read-back compared field by field with what the call meant),
// and one shape of failure, which says whether anything was written and
// keeps Memos' own failure inside it, so that a refused token (401) and a
// rate limit's wait (429) still reach the client.
//
// Memos' write API takes no precondition, writes a field an update mask
// names without a value as empty, deletes for good with everything that
// hangs on a memo, and makes a second object when a create whose answer
// was lost is retried (docs/tools.md, "Writing safely").
package writes

import (
	"context"
	"errors"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/memos"
	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// Memos is the instance as the caller sees it, for the reads of a plan
// and of a settle (memos.Caller).
type Memos interface {
	// Get asks Memos' API for path and returns the JSON body of a
	// successful answer; route is the path's template, for the log.
	Get(ctx context.Context, route, path string) ([]byte, error)
	// Others says who the caller is and whether LOCKDOWN keeps other
	// users' memos out (asked of Memos at most once).
	Others(ctx context.Context) (memos.Others, error)
}

// Read reads a Memos object as the caller.
func Read(ctx context.Context, m Memos, route, path string) (rawjson.Value, error) {
	b, err := m.Get(ctx, route, path)
	if err != nil {
		return rawjson.Value{}, err
	}
	return rawjson.ParseBytes(b), nil
}

// Failure is a write that did not plainly succeed, as its caller is told:
// what went wrong and what Memos holds. It wraps the cause (Memos' own
// *memos.Error when there is one), so that the MCP handler still finds a
// refusal of the credentials or a wait in it.
type Failure struct {
	Msg   string
	Cause error
	// Maybe is a write that may have been applied: the caller is to read
	// the object before trying again.
	Maybe bool
}

func (f *Failure) Error() string { return f.Msg }
func (f *Failure) Unwrap() error { return f.Cause }

// errEmpty is the cause of a write Memos answered with nothing.
var errEmpty = errors.New("Memos answered without confirming the write")

// The endings every failure of a write has: what it left, and whether a
// retry is safe.
const (
	nothingWritten = "nothing was written: trying again is safe"
	mayBeWritten   = "it may have been written: "
)

// NotDone is a write that Memos did not apply (cause, its failure or the
// gateway's refusal), with why the gateway knows (may be "").
func NotDone(cause error, why string) error {
	if cause == nil {
		cause = errEmpty
	}
	msg := cause.Error()
	if why != "" {
		msg += "; " + why
	}
	return &Failure{Msg: msg + "; " + nothingWritten, Cause: cause}
}

// Refuse is a write the plan refused before anything was sent.
func Refuse(msg string) error {
	return &Failure{Msg: msg + "; " + nothingWritten}
}

// RefuseShowing is a refusal that shows the caller text to start again
// from (a memo's current text), after what it says of the write.
func RefuseShowing(msg, shown string) error {
	return &Failure{Msg: msg + "; " + nothingWritten + ". " + shown}
}

// MayBeDone is a write whose outcome nothing settled: read, what the
// caller is to read before trying again (memos/abc).
func MayBeDone(cause error, read string) error {
	if cause == nil {
		cause = errEmpty
	}
	return &Failure{Msg: cause.Error() + "; " + mayBeWritten + "read " + read + " before trying again", Cause: cause, Maybe: true}
}

// Status is the HTTP status behind a failure from Memos, 0 for none.
func Status(err error) int {
	if e, ok := memos.AsError(err); ok {
		return e.Status
	}
	return 0
}

// Unclear reports whether a write's failure leaves open whether Memos
// applied it: no answer (a timeout, a reset, the caller gone), or an
// answer that is not Memos' own (a proxy's error page, a cut body). A
// settled Failure is never unclear.
func Unclear(err error) bool {
	if _, ok := errors.AsType[*Failure](err); ok {
		return false
	}
	e, ok := memos.AsError(err)
	return ok && e.Unsure
}
