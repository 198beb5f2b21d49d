package memos

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/logline"
)

// versionTTL is how long a learnt instance version is trusted; an instance
// is upgraded rarely, and relearning costs one extra request.
const versionTTL = time.Hour

// versionCache holds the release the instance reports, learnt lazily by the
// first tool call (or health check) of an isolate.
type versionCache struct {
	mu      sync.Mutex
	value   string
	learnt  time.Time
	release int    // the index of the release served (Options.Releases)
	placed  bool   // release is known
	warned  string // the version last warned about, so a mismatch is logged once
}

// served returns the index of the release the instance is served, and
// whether it is known.
func (v *versionCache) served() (int, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.release, v.placed
}

// stale reports whether the version should be (re)learnt now, and if so
// marks it as being learnt so that concurrent calls do not all ask.
func (v *versionCache) stale() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if time.Since(v.learnt) < versionTTL {
		return false
	}
	v.learnt = time.Now()
	return true
}

// note records a version the instance reported and the release it is
// served (when placed), and logs a mismatch with the releases the tools
// were built for, once.
func (v *versionCache) note(version string, release int, placed bool, releases []Release) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.value, v.learnt = version, time.Now()
	if placed {
		v.release, v.placed = release, true
	}
	if w := mismatch(version, releases); w != "" && v.warned != version {
		v.warned = version
		logline.Print(`{"msg":"version mismatch","instance":`, strconv.Quote(version), `,"warning":`, strconv.Quote(w), "}")
	}
}

// mismatch says what is wrong when the instance runs a Memos release the
// tools were not built for; "" when they were or the instance does not say
// (source builds report "dev", which is no mismatch). Releases are
// compared by major.minor: a patch release changes no route.
func mismatch(instance string, releases []Release) string {
	got := strings.TrimPrefix(instance, "v")
	if minor(got) == "" {
		return ""
	}
	var built []string
	for _, r := range releases {
		if minor(r.Version) == minor(got) {
			return ""
		}
		built = append(built, strings.TrimPrefix(r.Version, "v"))
	}
	return "the instance runs Memos " + got + " but the tools were built for " + strings.Join(built, " and ") +
		": switch the Worker to that release with make release (see the README, \"Another Memos release\")"
}

// minor returns a version's major.minor, "0.31" of "v0.31.1" or "0.31";
// "" for one that names no release ("dev", "", or not of that form).
func minor(version string) string {
	major, rest, ok := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	if !ok || !versionPart(major) {
		return ""
	}
	m, _, _ := strings.Cut(rest, ".")
	m, _, _ = strings.Cut(m, "-") // 0.31-rc1
	if !versionPart(m) {
		return ""
	}
	return major + "." + m
}

// versionPart reports whether s is a part of a version number: 1 to 6 ASCII digits.
func versionPart(s string) bool { return s != "" && len(s) <= 6 && digits(s) }

// mismatchNote is what a 404 of route (a template, /api/v1/memos/{memo})
// adds when the instance runs a release the tools were not built for and
// route differs between the releases: it may have moved or gone.
// "" when the releases agree, the instance's is unknown, or the route is
// one every release has (a 404 there is the object's, not the release's).
func (v *versionCache) mismatchNote(releases []Release, route string, differs func(string) bool) string {
	if differs != nil && !differs(route) {
		return ""
	}
	v.mu.Lock()
	instance, served := v.value, v.release
	v.mu.Unlock()
	if mismatch(instance, releases) == "" || served >= len(releases) {
		return ""
	}
	release := releases[served].Version
	instance = "v" + strings.TrimPrefix(instance, "v")
	return " (the instance runs Memos " + instance + ", but these tools were built for Memos " + release +
		", whose routes may differ: rebuild the Worker for " + instance + " as the README's \"Another Memos release\" shows)"
}
