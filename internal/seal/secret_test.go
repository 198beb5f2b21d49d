package seal

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// The outputs of the commands a person would use, made here the way the
// commands make them.
var generated = map[string]func() string{
	"openssl rand -base64 32": func() string { return base64.StdEncoding.EncodeToString(randomBytes(32)) },
	"openssl rand -base64 48": func() string { return base64.StdEncoding.EncodeToString(randomBytes(48)) },
	"openssl rand -hex 32":    func() string { return hex.EncodeToString(randomBytes(32)) },
	"hex in capitals":         func() string { return strings.ToUpper(hex.EncodeToString(randomBytes(32))) },
	"base64url unpadded":      func() string { return base64.RawURLEncoding.EncodeToString(randomBytes(32)) },
	"base64url padded":        func() string { return base64.URLEncoding.EncodeToString(randomBytes(32)) },
	"base64 unpadded":         func() string { return base64.RawStdEncoding.EncodeToString(randomBytes(32)) },
	"two tokens of 24 bytes": func() string {
		return base64.RawURLEncoding.EncodeToString(randomBytes(24)) + base64.RawURLEncoding.EncodeToString(randomBytes(24))
	},
}

func TestSecretAccepted(t *testing.T) {
	for name, gen := range generated {
		t.Run(name, func(t *testing.T) {
			// Many of each: a random secret must not be taken for a
			// pattern (the checks' false refusals are under 10⁻¹³).
			for range 2000 {
				s := gen()
				if err := CheckSecret(s); err != nil {
					t.Fatalf("CheckSecret(%q) = %v", s, err)
				}
				if _, err := New(s, s); err != nil {
					t.Fatalf("New(%q) = %v", s, err)
				}
			}
		})
	}
}

// What a secret is, is its decoded bytes: the key derivation takes those.
func TestSecretDecoded(t *testing.T) {
	b := randomBytes(32)
	spellings := []string{
		base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
		hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
	}
	mac := mustKeys(t, spellings[0], "").MAC("client", "x")
	for _, s := range spellings {
		if !mustKeys(t, s, "").CheckMAC("client", "x", mac) {
			t.Errorf("the secret spelt %q derives other keys", s)
		}
	}
}

func TestSecretRefused(t *testing.T) {
	counter := make([]byte, 32)
	for i := range counter {
		counter[i] = byte(3 * i)
	}
	fewValues := randomBytes(40)
	for i := range fewValues {
		fewValues[i] %= 8
	}
	half := randomBytes(20)
	for _, tc := range []struct {
		name   string
		secret string
		err    error
	}{
		{"empty", "", errSecretEncoding},
		{"openssl rand -hex 16 (32 characters, 16 bytes)", hex.EncodeToString(randomBytes(16)), errSecretShort},
		{"openssl rand -base64 16", base64.StdEncoding.EncodeToString(randomBytes(16)), errSecretShort},
		{"31 bytes", base64.RawURLEncoding.EncodeToString(randomBytes(31)), errSecretShort},
		{"a passphrase", "correct horse battery staple, and then some more words", errSecretEncoding},
		{"32 characters of text", "this-is-my-secret-of-32-chars!!!", errSecretEncoding},
		{"both base64 alphabets", "+" + base64.RawURLEncoding.EncodeToString(randomBytes(33))[1:43] + "-", errSecretEncoding},
		{"a line break inside", base64.StdEncoding.EncodeToString(randomBytes(24)) + "\n" + base64.StdEncoding.EncodeToString(randomBytes(24)), errSecretEncoding},
		{"padding inside", base64.StdEncoding.EncodeToString(randomBytes(16)) + base64.StdEncoding.EncodeToString(randomBytes(16)), errSecretEncoding},
		{"odd hex", hex.EncodeToString(randomBytes(32))[1:], errSecretEncoding},
		{"longer than 1024 characters", base64.StdEncoding.EncodeToString(randomBytes(769)), errSecretLong},
		{"zeros", base64.StdEncoding.EncodeToString(make([]byte, 32)), errSecretPattern},
		{"one hex digit", strings.Repeat("1", 64), errSecretPattern},
		{"hex digits in order", strings.Repeat("0123456789abcdef", 4), errSecretPattern},
		{"20 random bytes twice", base64.StdEncoding.EncodeToString(append(half, half...)), errSecretPattern},
		{"8 values", base64.StdEncoding.EncodeToString(fewValues), errSecretPattern},
		{"a counter", base64.StdEncoding.EncodeToString(counter), errSecretPattern},
		{"base64 of a password", base64.StdEncoding.EncodeToString([]byte("Tr0ub4dor&3 is my password for everything!")), errSecretPattern},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := CheckSecret(tc.secret); !errors.Is(err, tc.err) {
				t.Errorf("CheckSecret = %v, want %v", err, tc.err)
			}
			// New is the last line: it refuses the secret as current or
			// as previous (an empty previous is none), and never quotes it.
			good := generated["openssl rand -base64 32"]()
			pairs := [][2]string{{tc.secret, ""}, {tc.secret, good}}
			if tc.secret != "" {
				pairs = append(pairs, [2]string{good, tc.secret})
			}
			for _, pair := range pairs {
				k, err := New(pair[0], pair[1])
				if !errors.Is(err, tc.err) || k != nil {
					t.Errorf("New(%q, %q) = %v, %v; want %v", pair[0], pair[1], k, err, tc.err)
				}
				if err != nil && tc.secret != "" && strings.Contains(err.Error(), tc.secret) {
					t.Errorf("the error %q quotes the secret", err)
				}
			}
		})
	}
}
