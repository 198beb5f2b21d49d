package seal

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The secrets are made when the tests run: no secret value lives in the
// repository, not even a test's.
var secretA, secretB = randomSecret(), randomSecret()

func randomSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

func mustKeys(t *testing.T, secret, previous string) *Keys {
	t.Helper()
	k, err := New(secret, previous)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpen(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	later := now.Add(time.Hour)
	k := mustKeys(t, secretA, "")
	sealed := k.Seal("code", []byte(`{"t":"memos_pat_x"}`), later)
	if strings.Contains(sealed, "memos_pat") || strings.ContainsAny(sealed, "+/=") {
		t.Fatalf("sealed text %q shows its record or is not base64url", sealed)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(sealed)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)-1] ^= 1
	tampered := base64.RawURLEncoding.EncodeToString(flipped)
	rotated := mustKeys(t, secretB, secretA) // secretA is now the previous one
	for _, tc := range []struct {
		name    string
		keys    *Keys
		purpose string
		sealed  string
		at      time.Time
		want    string
		err     error
	}{
		{name: "opens", keys: k, purpose: "code", sealed: sealed, at: now, want: `{"t":"memos_pat_x"}`},
		{name: "just before expiry", keys: k, purpose: "code", sealed: sealed, at: later.Add(-time.Second), want: `{"t":"memos_pat_x"}`},
		{name: "expired", keys: k, purpose: "code", sealed: sealed, at: later, err: ErrExpired},
		{name: "another purpose", keys: k, purpose: "access", sealed: sealed, at: now, err: ErrInvalid},
		{name: "tampered", keys: k, purpose: "code", sealed: tampered, at: now, err: ErrInvalid},
		{name: "another secret", keys: mustKeys(t, secretB, ""), purpose: "code", sealed: sealed, at: now, err: ErrInvalid},
		{name: "previous secret after rotation", keys: rotated, purpose: "code", sealed: sealed, at: now, want: `{"t":"memos_pat_x"}`},
		{name: "not base64", keys: k, purpose: "code", sealed: "***", at: now, err: ErrInvalid},
		{name: "too short", keys: k, purpose: "code", sealed: sealed[:20], at: now, err: ErrInvalid},
		{name: "empty", keys: k, purpose: "code", sealed: "", at: now, err: ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.keys.Open(tc.purpose, tc.sealed, tc.at)
			if !errors.Is(err, tc.err) || string(got) != tc.want {
				t.Errorf("Open = %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
		})
	}
	// After rotation new records are sealed under the new secret only.
	fresh := rotated.Seal("code", []byte("x"), later)
	if _, err := k.Open("code", fresh, now); err == nil {
		t.Error("a record sealed after rotation opens under the previous secret alone")
	}
}

// A sealed record has exactly one spelling: a spent code or refresh token
// written another way must not open again as a fresh one. Go's base64
// decoders skip '\r' and '\n', and without Strict they ignore the unused
// bits of the last character.
func TestOneSpelling(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	k := mustKeys(t, secretA, "")
	for _, n := range []int{0, 1, 2, 40} {
		record := []byte(strings.Repeat("r", n))
		sealed := k.Seal("refresh", record, now.Add(time.Hour))
		if got, err := k.Open("refresh", sealed, now); err != nil || string(got) != string(record) {
			t.Fatalf("%d bytes: Open = %q, %v", n, got, err)
		}
		mid := len(sealed) / 2
		respellings := map[string]string{
			"trailing LF":   sealed + "\n",
			"CRLF inside":   sealed[:mid] + "\r\n" + sealed[mid:],
			"CR at the end": sealed + "\r",
			"padding":       sealed + strings.Repeat("=", (4-len(sealed)%4)%4) + "=",
			"space":         " " + sealed,
			"std alphabet":  strings.NewReplacer("-", "+", "_", "/").Replace(sealed),
		}
		if spare := overhead + n; spare%3 != 0 {
			// The last character carries 2 or 4 bits that are not the
			// record's: flip the lowest, which is one of them.
			last := strings.IndexByte(alphabet, sealed[len(sealed)-1])
			respellings["last character's spare bits"] = sealed[:len(sealed)-1] + string(alphabet[last^1])
		}
		for name, s := range respellings {
			if s == sealed {
				continue // the std alphabet spelling has nothing to replace
			}
			t.Run(strconv.Itoa(n)+" bytes, "+name, func(t *testing.T) {
				if got, err := k.Open("refresh", s, now); !errors.Is(err, ErrInvalid) {
					t.Errorf("Open(%q) = %q, %v; want %v", s, got, err, ErrInvalid)
				}
			})
		}
	}
}

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// Two seals of the same record differ: the nonce is random.
func TestSealIsRandomized(t *testing.T) {
	k := mustKeys(t, secretA, "")
	exp := time.Now().Add(time.Minute)
	if a, b := k.Seal("code", []byte("same"), exp), k.Seal("code", []byte("same"), exp); a == b {
		t.Errorf("two seals are equal: %s", a)
	}
}

func TestMAC(t *testing.T) {
	k := mustKeys(t, secretA, "")
	mac := k.MAC("client", "client-1")
	for _, tc := range []struct {
		name       string
		keys       *Keys
		data, mac  string
		purpose    string
		wantAccept bool
	}{
		{"right", k, "client-1", mac, "client", true},
		{"other data", k, "client-2", mac, "client", false},
		{"other purpose", k, "client-1", mac, "code", false},
		{"other secret", mustKeys(t, secretB, ""), "client-1", mac, "client", false},
		{"previous secret", mustKeys(t, secretB, secretA), "client-1", mac, "client", true},
		{"garbage", k, "client-1", "!!", "client", false},
		{"trailing LF", k, "client-1", mac + "\n", "client", false},
		{"spare bits set", k, "client-1", mac[:len(mac)-1] + string(alphabet[strings.IndexByte(alphabet, mac[len(mac)-1])^1]), "client", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.keys.CheckMAC(tc.purpose, tc.data, tc.mac); got != tc.wantAccept {
				t.Errorf("CheckMAC = %v", got)
			}
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	k, _ := New(secretA, "")
	sealed := k.Seal("access", []byte(`{"t":"memos_pat_`+strings.Repeat("x", 32)+`","s":"read write","c":"https://claude.ai/oauth/mcp-oauth-client-metadata"}`), time.Now().Add(time.Hour))
	now := time.Now()
	for b.Loop() {
		if _, err := k.Open("access", sealed, now); err != nil {
			b.Fatal(err)
		}
	}
}
