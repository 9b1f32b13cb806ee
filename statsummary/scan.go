package statsummary

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// The scanner: JSON (RFC 8259, as encoding/json accepts it) read in place.
// Every reader starts at the first byte of a value (after white space) and
// leaves d.pos just past it.

func (d *decoder) skipSpace() {
	data := d.data
	i := d.pos
	for i < len(data) {
		switch data[i] {
		case ' ':
			// Indentation: after one space, eight at a time.
			i++
			for i+8 <= len(data) && binary.LittleEndian.Uint64(data[i:]) == 0x2020202020202020 {
				i += 8
			}
		case '\n', '\t', '\r':
			i++
		default:
			d.pos = i
			return
		}
	}
	d.pos = len(data)
}

// peek returns the byte at the current position after white space, or 0 at
// the end of the input.
func (d *decoder) peek() byte {
	d.skipSpace()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// expect consumes c after white space.
func (d *decoder) expect(c byte, what string) error {
	if d.peek() != c {
		return d.syntax("want %s, got %s", what, d.describe())
	}
	d.pos++
	return nil
}

// object reads an object, calling field with each key (unescaped; valid only
// during the call) while the decoder stands at the member's value, which field
// must consume. Errors from field get the key added to their path. null
// reads as an object without members and reports null.
func (d *decoder) object(field func(key []byte) error) (null bool, err error) {
	switch d.peek() {
	case '{':
	case 'n':
		return true, d.null()
	default:
		return false, d.wrongType("object")
	}
	if err := d.enter(); err != nil {
		return false, err
	}
	if d.peek() == '}' {
		d.pos++
		d.depth--
		return false, nil
	}
	for {
		if d.peek() != '"' {
			return false, d.syntax("want a string key, got %s", d.describe())
		}
		key, err := d.key()
		if err != nil {
			return false, err
		}
		if err := d.expect(':', "':'"); err != nil {
			return false, inKey(err, key)
		}
		d.skipSpace()
		if err := field(key); err != nil {
			return false, inKey(err, key)
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			d.depth--
			return false, nil
		default:
			return false, inKey(d.syntax("want ',' or '}', got %s", d.describe()), key)
		}
	}
}

// array reads an array, calling elem with each index while the decoder
// stands at the element, which elem must consume. Errors from elem get the
// index added to their path. null reads as an empty array and reports null.
func (d *decoder) array(elem func(i int) error) (null bool, err error) {
	switch d.peek() {
	case '[':
	case 'n':
		return true, d.null()
	default:
		return false, d.wrongType("array")
	}
	if err := d.enter(); err != nil {
		return false, err
	}
	if d.peek() == ']' {
		d.pos++
		d.depth--
		return false, nil
	}
	for i := 0; ; i++ {
		d.skipSpace()
		if err := elem(i); err != nil {
			return false, atIndex(err, i)
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			d.depth--
			return false, nil
		default:
			return false, atIndex(d.syntax("want ',' or ']', got %s", d.describe()), i)
		}
	}
}

// enter consumes the '{' or '[' of a nested value.
func (d *decoder) enter() error {
	if d.depth >= maxDepth {
		return d.syntax("nesting deeper than %d", maxDepth)
	}
	d.depth++
	d.pos++
	return nil
}

// skip reads and discards one value of any type.
func (d *decoder) skip() error {
	switch c := d.peek(); {
	case c == '{':
		_, err := d.object(func([]byte) error { return d.skip() })
		return err
	case c == '[':
		_, err := d.array(func(int) error { return d.skip() })
		return err
	case c == '"':
		_, err := d.scanString()
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, err := d.scanNumber()
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.null()
	}
	return d.syntax("want a value, got %s", d.describe())
}

func (d *decoder) null() error { return d.literal("null") }

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.pos >= len(lit) && string(d.data[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return nil
	}
	return d.syntax("invalid literal, want %s", lit)
}

// scanString consumes a string token and reports whether it is plain: no
// escapes and only printable ASCII, so that its bytes between the quotes are
// its value.
func (d *decoder) scanString() (plain bool, err error) {
	data := d.data
	i, n := d.pos+1, len(data)
	plain = true
	for i < n {
		c := data[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			i++
			continue
		}
		switch {
		case c == '"':
			d.pos = i + 1
			return plain, nil
		case c == '\\':
			plain = false
			if i+1 >= n {
				d.pos = n
				return false, d.syntax("unterminated string")
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > n || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) || !isHex(data[i+5]) {
					d.pos = i
					return false, d.syntax(`invalid \u escape`)
				}
				i += 6
			default:
				d.pos = i
				return false, d.syntax("invalid escape %q", data[i:i+2])
			}
		case c < 0x20:
			d.pos = i
			return false, d.syntax("control character %q in string", c)
		default: // a byte of a multi-byte rune (or invalid UTF-8)
			plain = false
			i++
		}
	}
	d.pos = n
	return false, d.syntax("unterminated string")
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// stringValue reads a string token and returns its value.
func (d *decoder) stringValue() (string, error) {
	start := d.pos
	plain, err := d.scanString()
	if err != nil {
		return "", err
	}
	tok := d.data[start:d.pos]
	if plain {
		return string(tok[1 : len(tok)-1]), nil
	}
	s, _ := unquote(tok) // scanString validated the token
	return s, nil
}

// key reads an object key; a plain key is returned in place.
func (d *decoder) key() ([]byte, error) {
	start := d.pos
	plain, err := d.scanString()
	if err != nil {
		return nil, err
	}
	tok := d.data[start:d.pos]
	if plain {
		return tok[1 : len(tok)-1], nil
	}
	s, _ := unquote(tok)
	return []byte(s), nil
}

// scanNumber consumes a number token (JSON grammar) and reports whether it
// is an integer (no fraction, no exponent).
func (d *decoder) scanNumber() (integer bool, err error) {
	i, n := d.pos, len(d.data)
	digits := func() int {
		j := i
		for i < n && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
		return i - j
	}
	if d.data[i] == '-' {
		i++
	}
	switch {
	case i < n && d.data[i] == '0':
		i++
	case digits() == 0:
		d.pos = i
		return false, d.syntax("invalid number, want a digit, got %s", d.describe())
	}
	integer = true
	if i < n && d.data[i] == '.' {
		i++
		integer = false
		if digits() == 0 {
			d.pos = i
			return false, d.syntax("invalid number, want a digit after '.', got %s", d.describe())
		}
	}
	if i < n && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		integer = false
		if i < n && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			d.pos = i
			return false, d.syntax("invalid number, want an exponent digit, got %s", d.describe())
		}
	}
	d.pos = i
	return integer, nil
}

// uint reads a number that must be an integer in [0, max].
func (d *decoder) uint(max uint64) (uint64, error) {
	start := d.pos
	integer, err := d.scanNumber()
	if err != nil {
		return 0, err
	}
	tok := d.data[start:d.pos]
	if tok[0] == '-' {
		return 0, errorf(ErrNegative, " %s", excerpt(tok))
	}
	if !integer {
		return 0, errorf(ErrInvalidNumber, " %s: not an integer", excerpt(tok))
	}
	var v uint64
	for _, c := range tok {
		digit := uint64(c - '0')
		if v > (max-digit)/10 {
			return 0, errorf(ErrInvalidNumber, " %s: out of range", excerpt(tok))
		}
		v = v*10 + digit
	}
	return v, nil
}

// wrongType reports the value at the current position as not of the type
// wanted, or a syntax error if no value starts there.
func (d *decoder) wrongType(want string) error {
	var got string
	switch c := d.peek(); {
	case c == '{':
		got = "object"
	case c == '[':
		got = "array"
	case c == '"':
		got = "string"
	case c == 't' || c == 'f':
		got = "boolean"
	case c == 'n':
		got = "null"
	case c == '-' || c >= '0' && c <= '9':
		got = "number"
	default:
		return d.syntax("want a value, got %s", d.describe())
	}
	return errorf(ErrWrongType, ": want %s, got %s", want, got)
}

// syntax returns an ErrSyntax error at the current position.
func (d *decoder) syntax(format string, args ...any) error {
	return errorf(ErrSyntax, ": %s at offset %d", fmt.Sprintf(format, args...), d.pos)
}

// describe names what stands at the current position, for syntax errors.
func (d *decoder) describe() string {
	if d.pos >= len(d.data) {
		return "end of input"
	}
	return fmt.Sprintf("%q", d.data[d.pos])
}
