package writes

import (
	"context"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/lease"
)

// Hold is how long a write holds its memo's lock at most: its plan's reads,
// the write and a read-back take far less unless Memos stalls, and the
// lease's context ends the write's requests when it lapses, so that
// nothing is sent once another write may hold the memo.
const Hold = lease.MaxHold

// Lock takes the lock of the memo id for one write, with l, and returns
// its lease: the write runs under its Context
// and ends with its Release. Two writes of one memo, through one Worker
// or two, never interleave a read and a write. A lock that cannot be had
// is a refusal: nothing was written.
func Lock(ctx context.Context, l lease.Locker, id string) (*lease.Lease, error) {
	if l == nil {
		return nil, Refuse("the gateway has no memo locks, which every write takes") // main gives them
	}
	held, err := l.Lock(ctx, "memos/"+id, Hold)
	if err != nil {
		return nil, &Failure{Msg: err.Error(), Cause: err}
	}
	return held, nil
}
