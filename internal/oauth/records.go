package oauth

import (
	"encoding/base64"
	"strings"
	"time"

	"golang.org/x/crypto/blake2b"

	"github.com/memos-mcp-edge/memos-mcp-edge/internal/rawjson"
)

// record is what the sealed artefacts carry, as a flat JSON object of
// strings: each kind fills the fields it needs.
type record struct {
	// A grant: codes, access and refresh tokens.
	Token     string // the Memos personal access token
	TokenName string // its resource name when the gateway created it (and may delete it)
	Scope     string
	Client    string // clientRef of the client it was issued to
	Resource  string
	Grant     string // the grant's id (a consent request names the grant it would make)
	Gen       string // the generation a code or refresh token may advance the grant from
	Until     string // when the grant ends, in Unix seconds
	// A code and a consent request.
	Redirect  string
	Challenge string // PKCE S256 code challenge
	// A consent request.
	ClientID string // the client_id itself, to show and to bind the code to
	State    string
	Browser  string // the CSRF cookie's value it is bound to
	// A client registration.
	Name       string
	Redirects  []string
	AuthMethod string
}

// fields names the members of the JSON form, with their places in record.
func (r *record) fields() []struct {
	key string
	val *string
} {
	return []struct {
		key string
		val *string
	}{
		{"t", &r.Token}, {"tn", &r.TokenName}, {"s", &r.Scope}, {"c", &r.Client}, {"res", &r.Resource},
		{"r", &r.Redirect}, {"pc", &r.Challenge}, {"cid", &r.ClientID}, {"st", &r.State}, {"b", &r.Browser},
		{"n", &r.Name}, {"am", &r.AuthMethod}, {"g", &r.Grant}, {"gn", &r.Gen}, {"u", &r.Until},
	}
}

func (r *record) encode() []byte {
	b := []byte{'{'}
	for _, f := range r.fields() {
		if *f.val == "" {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(rawjson.AppendString(b, f.key), ':')
		b = rawjson.AppendString(b, *f.val)
	}
	if len(r.Redirects) > 0 {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `"rs":[`...)
		for i, u := range r.Redirects {
			if i > 0 {
				b = append(b, ',')
			}
			b = rawjson.AppendString(b, u)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func decodeRecord(b []byte) record {
	var r record
	doc := rawjson.ParseBytes(b)
	for _, f := range r.fields() {
		*f.val = doc.Get(f.key).Str
	}
	for _, u := range doc.Get("rs").Array() {
		r.Redirects = append(r.Redirects, u.Str)
	}
	return r
}

// seal returns r sealed for purpose with prefix, valid for ttl.
func (s *Server) seal(purpose, prefix string, r record, ttl time.Duration) string {
	return prefix + s.opts.Keys.Seal(purpose, r.encode(), s.opts.Now().Add(ttl))
}

// open returns the record sealed for purpose in text, which must carry
// prefix.
func (s *Server) open(purpose, prefix, text string) (record, error) {
	sealed, ok := strings.CutPrefix(text, prefix)
	if !ok {
		return record{}, errNotOurs
	}
	b, err := s.opts.Keys.Open(purpose, sealed, s.opts.Now())
	if err != nil {
		return record{}, err
	}
	return decodeRecord(b), nil
}

// clientRef is what grants keep of a client_id: a digest, so that the
// tokens of a client with a long sealed client_id stay short.
func clientRef(clientID string) string {
	sum := blake2b.Sum256([]byte(clientID))
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}
