package statsummary

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Error categories. Every error [Decode] returns starts with "statsummary: ",
// names the JSON path of the offending value and wraps exactly one of these;
// test for them with [errors.Is].
var (
	// ErrSyntax reports input that is not one well-formed JSON value
	// (including nesting deeper than 10,000 levels, encoding/json's limit).
	ErrSyntax = errors.New("invalid JSON")
	// ErrWrongType reports a field that is read holding a value of another
	// JSON type: a string where a count belongs, an array where an object does.
	ErrWrongType = errors.New("wrong type")
	// ErrNegative reports a negative count or byte figure.
	ErrNegative = errors.New("negative value")
	// ErrInvalidNumber reports a count that is not an integer or does not fit
	// its type (uint64, or int64 for maxpid and curproc).
	ErrInvalidNumber = errors.New("invalid number")
	// ErrInvalidTime reports a time that is not an RFC 3339 string.
	ErrInvalidTime = errors.New("invalid time")
)

// decodeError is an error on its way out of the decoder: the path segments
// are collected in reverse while the recursion unwinds, so that a successful
// decode pays nothing for them.
type decodeError struct {
	rev    []string // path segments, innermost first: ".name", "[3]"
	kind   error
	detail string // follows kind's text: " -5", ": want object, got array"
}

func (e *decodeError) Error() string {
	var b strings.Builder
	b.WriteString("statsummary: ")
	if len(e.rev) == 0 {
		b.WriteString("document")
	}
	for i := len(e.rev) - 1; i >= 0; i-- {
		seg := e.rev[i]
		if i == len(e.rev)-1 && seg[0] == '.' {
			seg = seg[1:]
		}
		b.WriteString(seg)
	}
	b.WriteString(": ")
	b.WriteString(e.kind.Error())
	b.WriteString(e.detail)
	return b.String()
}

func (e *decodeError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &decodeError{kind: kind, detail: fmt.Sprintf(format, args...)}
}

// inKey and atIndex add a path segment to err, which the decoder made.
func inKey(err error, key []byte) error {
	e := err.(*decodeError)
	e.rev = append(e.rev, keySegment(key))
	return e
}

func atIndex(err error, i int) error {
	e := err.(*decodeError)
	e.rev = append(e.rev, "["+strconv.Itoa(i)+"]")
	return e
}

// keySegment renders a key as ".key" when it is a plain name (letters,
// digits, '_' and '-', as the kubelet's keys are) and as `["key"]` otherwise.
func keySegment(key []byte) string {
	plain := len(key) > 0
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			plain = false
			break
		}
	}
	if plain {
		return "." + string(key)
	}
	return "[" + strconv.Quote(string(key)) + "]"
}

// excerpt shortens an offending token for an error message.
func excerpt(tok []byte) string {
	const max = 64
	if len(tok) > max {
		return string(tok[:max]) + "..."
	}
	return string(tok)
}
