package memos

import (
	"errors"
	"strconv"
	"time"
)

// Error is a request that Memos refused or never answered, as its caller
// is to be told: Msg says why (Memos' own message, or what the answer says
// about the setup) and the fields what the gateway does about it. Every
// failure of this package is an *Error; match it with AsError.
type Error struct {
	Status int    // Memos' HTTP status; 0 when there was no answer
	Msg    string // for the caller, never with a credential in it
	// Refused is Memos refusing the caller's credentials (its own 401, or
	// a refused sign-in or token in the account calls).
	Refused bool
	// Wait is how long Memos asked to wait before a retry (its 429); 0
	// when it did not say.
	Wait time.Duration
	// Challenge is Memos asking for a challenge (a captcha) at sign-in,
	// which only its own web app can show.
	Challenge bool
	// Unsure is a request whose fate is unknown: no answer came
	// (unreachable, timed out, cancelled, too large), or one that is not
	// Memos' own (a proxy's error page, a body cut short). Memos may have
	// acted on it.
	Unsure bool
}

func (e *Error) Error() string { return e.Msg }

// AsError returns the *Error in err's chain.
func AsError(err error) (*Error, bool) {
	return errors.AsType[*Error](err)
}

// IsRefused reports whether err is Memos refusing the caller's credentials.
func IsRefused(err error) bool {
	e, ok := AsError(err)
	return ok && e.Refused
}

// errBadCredentials is the message of a sign-in or a token Memos refused.
const errBadCredentials = "Memos did not accept these credentials"

// itoa formats a status code.
func itoa(n int) string { return strconv.Itoa(n) }
