package seal

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
)

// MinSecretBytes is the fewest bytes a secret must decode to: 32, as
// `openssl rand -base64 32` and `openssl rand -hex 32` give.
const MinSecretBytes = 32

// maxSecretLen bounds a secret's text, and with it the cost of checking it:
// far more than any generated secret, which has no use for more than 64
// bytes.
const maxSecretLen = 1024

// Why a secret is refused. The messages never quote the secret.
var (
	errSecretEncoding = errors.New("it is neither base64 (standard or URL-safe, padded or not) nor hex")
	errSecretShort    = errors.New("it decodes to fewer than 32 bytes")
	errSecretLong     = errors.New("it is longer than 1024 characters")
	errSecretPattern  = errors.New("its bytes are a pattern or text, not random")
)

// CheckSecret reports why secret cannot seal, or nil when it can: it must
// be base64 or hex of at least MinSecretBytes bytes that look random. The
// error is a reason to put after the secret's name.
func CheckSecret(secret string) error {
	_, err := decodeSecret(secret)
	return err
}

// decodeSecret returns the bytes of a secret, the input of the key
// derivation. What its text decodes to is the secret, not the text: 32
// characters of hex are only 16 bytes.
func decodeSecret(s string) ([]byte, error) {
	if len(s) > maxSecretLen {
		return nil, errSecretLong
	}
	b, err := decodeSecretText(s)
	if err != nil {
		return nil, errSecretEncoding
	}
	if len(b) < MinSecretBytes {
		return nil, errSecretShort
	}
	if !looksRandom(b) {
		return nil, errSecretPattern
	}
	return b, nil
}

// decodeSecretText reads hex, or base64 in either alphabet with or without
// padding. Text of hex digits only is taken as hex: random base64 of 43
// characters or more is all hex digits with a chance under 10⁻¹⁹. Any
// other character (a space, a line break, a mix of the two base64
// alphabets) makes it neither.
func decodeSecretText(s string) ([]byte, error) {
	if s == "" {
		return nil, errSecretEncoding
	}
	if strings.Trim(s, "0123456789abcdefABCDEF") == "" {
		if b, ok := decodeHex(s); ok {
			return b, nil
		}
		return nil, errSecretEncoding // an odd count: a digit was lost
	}
	if strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=") != "" {
		return nil, errSecretEncoding
	}
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if !strings.HasSuffix(s, "=") {
		enc = enc.WithPadding(base64.NoPadding)
	}
	return enc.DecodeString(s)
}

// decodeHex reads an even number of hex digits in either case. It is here rather than
// encoding/hex's, whose errors bring fmt (about 100 KB) into the wasm.
func decodeHex(s string) ([]byte, bool) {
	if len(s)%2 != 0 {
		return nil, false
	}
	b := make([]byte, len(s)/2)
	for i := range b {
		hi, ok1 := hexDigit(s[2*i])
		lo, ok2 := hexDigit(s[2*i+1])
		if !ok1 || !ok2 {
			return nil, false
		}
		b[i] = hi<<4 | lo
	}
	return b, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// looksRandom refuses bytes that are obviously not random: fewer than 16
// distinct values (32 random bytes have about 30), a repeated pattern, a
// pattern of steps (a counter), or printable ASCII only (base64 of a
// password). Random bytes fail one of these with a chance under 10⁻¹³.
func looksRandom(b []byte) bool {
	var seen [256]bool
	distinct, text := 0, true
	for _, c := range b {
		if !seen[c] {
			seen[c] = true
			distinct++
		}
		text = text && ' ' <= c && c <= '~'
	}
	steps := make([]byte, len(b)-1)
	for i := range steps {
		steps[i] = b[i+1] - b[i]
	}
	return distinct >= 16 && !text && !repeats(b) && !repeats(steps)
}

// repeats reports whether b is a pattern written at least twice over (a
// period of at most half its length). Comparisons of random bytes stop at
// the first byte, almost always; at worst this is quadratic in a length
// that maxSecretLen bounds.
func repeats(b []byte) bool {
	for p := 1; p <= len(b)/2; p++ {
		if bytes.Equal(b[p:], b[:len(b)-p]) {
			return true
		}
	}
	return false
}
