package crypt

// HMAC-SHA256 (RFC 2104) and HKDF-SHA256 (RFC 5869).

// HMAC returns the HMAC-SHA256 of data under key.
func HMAC(key, data []byte) [Size]byte {
	return hmac(key, data)
}

// hmac returns the HMAC-SHA256 of the concatenation of parts under key:
// H(K ^ opad, H(K ^ ipad, parts)), where K is the key padded with zeros to
// a block, or its digest when it is longer than a block.
func hmac(key []byte, parts ...[]byte) [Size]byte {
	var k [blockSize]byte
	if len(key) > blockSize {
		sum := Sum256(key)
		copy(k[:], sum[:])
	} else {
		copy(k[:], key)
	}
	var pad [blockSize]byte
	for i := range k {
		pad[i] = k[i] ^ 0x36
	}
	inner := newDigest()
	inner.write(pad[:])
	for _, p := range parts {
		inner.write(p)
	}
	innerSum := inner.sum()
	for i := range k {
		pad[i] = k[i] ^ 0x5c
	}
	outer := newDigest()
	outer.write(pad[:])
	outer.write(innerSum[:])
	return outer.sum()
}

// HKDF returns length bytes of keying material derived from secret with
// HKDF-SHA256: extracted with salt (nil for none), then expanded with info,
// which names what the material is for. length is at most 255*Size; more
// is a programming error and panics.
func HKDF(secret, salt []byte, info string, length int) []byte {
	prk := hkdfExtract(salt, secret)
	return hkdfExpand(prk[:], []byte(info), length)
}

// hkdfExtract is HKDF-Extract (RFC 5869 section 2.2). A missing salt is
// HashLen zero bytes, which as an HMAC key is the same as no bytes at all.
func hkdfExtract(salt, secret []byte) [Size]byte {
	return hmac(salt, secret)
}

// hkdfExpand is HKDF-Expand (section 2.3): T(i) = HMAC(prk, T(i-1) | info
// | i), for i from 1, concatenated and cut to length.
func hkdfExpand(prk, info []byte, length int) []byte {
	if length < 0 || length > 255*Size {
		panic("crypt: HKDF-SHA256 cannot give that many bytes")
	}
	out := make([]byte, 0, length+Size)
	var t []byte
	for i := 1; len(out) < length; i++ {
		sum := hmac(prk, t, info, []byte{byte(i)})
		t = sum[:]
		out = append(out, t...)
	}
	return out[:length]
}
