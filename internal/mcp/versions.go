package mcp

import "slices"

// Protocol versions, newest first.
const (
	Version2026 = "2026-07-28"
	Version2025 = "2025-11-25"
	// versionNoHeader is assumed for a legacy request without MCP-Protocol-Version.
	versionNoHeader = "2025-03-26"
)

// supportedVersions lists every version served, newest first, as
// server/discover reports them.
var supportedVersions = []string{Version2026, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// legacyVersions are the versions negotiated through initialize.
var legacyVersions = supportedVersions[1:]

// supportedJSON is supportedVersions as a JSON array.
const supportedJSON = `["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]`

func isLegacy(v string) bool { return slices.Contains(legacyVersions, v) }

// negotiate picks the initialize answer: the requested version when it is a
// legacy one, else the newest legacy version.
func negotiate(requested string) string {
	if isLegacy(requested) {
		return requested
	}
	return Version2025
}

// allowsBatch reports whether a legacy version accepts JSON-RPC batches
// (removed in 2025-06-18).
func allowsBatch(v string) bool { return v == "2025-03-26" || v == "2024-11-05" }

// hasResourceLinks reports whether a version knows resource_link content
// items (added in 2025-06-18); the two before it do not.
func hasResourceLinks(v string) bool { return !allowsBatch(v) }
