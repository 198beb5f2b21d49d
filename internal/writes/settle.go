package writes

import "context"

// State is what a read-back shows of a write.
type State int

const (
	// Applied: Memos holds what the write meant.
	Applied State = iota
	// Unapplied: Memos holds what it held before.
	Unapplied
	// Unknown: Memos holds neither (someone else wrote meanwhile).
	Unknown
)

// Settle is the one settle of a write whose outcome is unclear (cause:
// no answer, one that is not Memos' own, or nil for an empty answer): one
// read-back, check, tells what Memos holds. It returns nil when the write
// was applied, and otherwise the failure that says whether a retry is
// safe. name is the object to read before trying again (memos/abc).
func Settle(ctx context.Context, cause error, name string, check func(context.Context) (State, error)) error {
	state, err := check(ctx)
	switch {
	case err != nil || state == Unknown:
		return MayBeDone(cause, name)
	case state == Unapplied:
		return NotDone(cause, "reading "+name+" back shows the write was not applied")
	}
	return nil
}

// LostNote is the note of a result whose answer was lost and settled by
// reading back.
const LostNote = "Memos' answer was lost on the way; reading back shows the write applied"
