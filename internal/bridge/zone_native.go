//go:build !js

package bridge

import (
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/finder"
)

// ZoneOffset returns the offset east of UTC, in seconds, of the IANA time
// zone called name at t, from the system's zone database.
func ZoneOffset(name string, t time.Time) (seconds int, ok bool) { return finder.GoOffsets(name, t) }
