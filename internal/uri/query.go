package uri

import (
	"cmp"
	"errors"
	"strings"
)

// Values are a query string's or a form's parameters: each name's values,
// in order.
type Values map[string][]string

// Get returns the first value of name, or "".
func (v Values) Get(name string) string {
	if vs := v[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Encode writes v as a query string, names sorted. The gateway encodes
// only the few parameters it sets itself (an authorization's answer), which
// an insertion sort orders for less wasm than a general sort's 20 KB.
func (v Values) Encode() string {
	names := make([]string, 0, len(v))
	for name := range v {
		i := len(names)
		names = append(names, name)
		for ; i > 0 && names[i-1] > name; i-- {
			names[i] = names[i-1]
		}
		names[i] = name
	}
	var b strings.Builder
	for _, name := range names {
		escaped := QueryEscape(name)
		for _, value := range v[name] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(escaped)
			b.WriteByte('=')
			b.WriteString(QueryEscape(value))
		}
	}
	return b.String()
}

// MaxParams is the most parameters ParseQuery reads, as net/url's default.
const MaxParams = 10000

var (
	errTooManyParams = errors.New("number of URL query parameters exceeded limit")
	errSemicolon     = errors.New("invalid semicolon separator in query")
)

// ParseQuery reads a query string or an application/x-www-form-urlencoded
// body. A parameter that cannot be decoded, or holds a ';', is left out and
// makes the error (the first such, or the last semicolon); the rest are
// still returned.
func ParseQuery(query string) (Values, error) {
	v := Values{}
	if strings.Count(query, "&")+1 > MaxParams {
		return v, errTooManyParams
	}
	var err error
	for query != "" {
		var param string
		param, query, _ = strings.Cut(query, "&")
		if strings.IndexByte(param, ';') >= 0 {
			err = errSemicolon
			continue
		}
		if param == "" {
			continue
		}
		name, value, _ := strings.Cut(param, "=")
		name, nameErr := QueryUnescape(name)
		value, valueErr := QueryUnescape(value)
		if e := cmp.Or(nameErr, valueErr); e != nil {
			if err == nil {
				err = e
			}
			continue
		}
		v[name] = append(v[name], value)
	}
	return v, err
}
