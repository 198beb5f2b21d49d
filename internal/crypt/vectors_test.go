package crypt

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// The test vectors of the specifications, copied from their text: FIPS
// 180-4's examples, RFC 4231, RFC 5869, RFC 8439 sections 2.1 to 2.8 and
// appendix A.3, and draft-irtf-cfrg-xchacha sections 2.2.1 and A.1.

// unhex decodes hex written with spaces or colons between bytes.
func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", ":", "", "\n", "", "\t", "").Replace(s))
	if err != nil {
		panic(err)
	}
	return b
}

// seq returns the bytes from, from+1, …, n of them.
func seq(from byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = from + byte(i)
	}
	return b
}

const sunscreen = "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."

func TestSHA256Vectors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"448 bits", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
			"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
		{"896 bits", "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
			"cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
		{"a million a", strings.Repeat("a", 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sum256([]byte(tc.in)); hex.EncodeToString(got[:]) != tc.want {
				t.Errorf("Sum256 = %x, want %s", got, tc.want)
			}
		})
	}
}

func TestHMACVectors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		key, data []byte
		want      string // a prefix, for the truncated case 5
	}{
		{"case 1", bytes.Repeat([]byte{0x0b}, 20), []byte("Hi There"),
			"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
		{"case 2", []byte("Jefe"), []byte("what do ya want for nothing?"),
			"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
		{"case 3", bytes.Repeat([]byte{0xaa}, 20), bytes.Repeat([]byte{0xdd}, 50),
			"773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
		{"case 4", seq(1, 25), bytes.Repeat([]byte{0xcd}, 50),
			"82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
		{"case 5", bytes.Repeat([]byte{0x0c}, 20), []byte("Test With Truncation"),
			"a3b6167473100ee06e0c796c2955552b"},
		{"case 6", bytes.Repeat([]byte{0xaa}, 131), []byte("Test Using Larger Than Block-Size Key - Hash Key First"),
			"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
		{"case 7", bytes.Repeat([]byte{0xaa}, 131), []byte("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."),
			"9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := HMAC(tc.key, tc.data); !strings.HasPrefix(hex.EncodeToString(got[:]), tc.want) {
				t.Errorf("HMAC = %x, want %s", got, tc.want)
			}
		})
	}
}

func TestHKDFVectors(t *testing.T) {
	for _, tc := range []struct {
		name             string
		ikm, salt, info  []byte
		length           int
		wantPRK, wantOKM string
	}{
		{"case 1", bytes.Repeat([]byte{0x0b}, 22), seq(0, 13), seq(0xf0, 10), 42,
			"077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
			"3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"},
		{"case 2", seq(0, 80), seq(0x60, 80), seq(0xb0, 80), 82,
			"06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
			"b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"},
		{"case 3", bytes.Repeat([]byte{0x0b}, 22), nil, nil, 42,
			"19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
			"8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if prk := hkdfExtract(tc.salt, tc.ikm); hex.EncodeToString(prk[:]) != tc.wantPRK {
				t.Errorf("PRK = %x, want %s", prk, tc.wantPRK)
			}
			if okm := HKDF(tc.ikm, tc.salt, string(tc.info), tc.length); hex.EncodeToString(okm) != tc.wantOKM {
				t.Errorf("OKM = %x, want %s", okm, tc.wantOKM)
			}
		})
	}
}

// RFC 8439 section 2.1.1.
func TestQuarterRoundVector(t *testing.T) {
	a, b, c, d := quarterRound(0x11111111, 0x01020304, 0x9b8d6f43, 0x01234567)
	if got, want := [4]uint32{a, b, c, d}, [4]uint32{0xea2a92f4, 0xcb1cf8ce, 0x4581472e, 0x5881c4bb}; got != want {
		t.Errorf("quarterRound = %08x, want %08x", got, want)
	}
}

// RFC 8439 sections 2.3.2 (a block) and 2.6.2 (a Poly1305 key: the first
// 32 bytes of block 0).
func TestChaCha20BlockVectors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		key     []byte
		counter uint32
		nonce   string
		want    string // the block's start
	}{
		{"2.3.2", seq(0, 32), 1, "00 00 00 09 00 00 00 4a 00 00 00 00",
			`10 f1 e7 e4 d1 3b 59 15 50 0f dd 1f a3 20 71 c4 c7 d1 f4 c7 33 c0 68 03 04 22 aa 9a c3 d4 6c 4e
			d2 82 64 46 07 9f aa 09 14 c2 d7 05 d9 8b 02 a2 b5 12 9c d1 de 16 4e b9 cb d0 83 e8 a2 50 3c 4e`},
		{"2.6.2", seq(0x80, 32), 0, "00 00 00 00 00 01 02 03 04 05 06 07",
			"8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, nonce := [KeySize]byte(tc.key), [12]byte(unhex(tc.nonce))
			s := chachaState(&key, tc.counter, &nonce)
			var block [64]byte
			keyBlock(&block, &s)
			if want := unhex(tc.want); !bytes.Equal(block[:len(want)], want) {
				t.Errorf("block = %x, want %x", block[:len(want)], want)
			}
		})
	}
}

// RFC 8439 section 2.4.2.
func TestChaCha20EncryptionVector(t *testing.T) {
	key := [KeySize]byte(seq(0, 32))
	nonce := [12]byte(unhex("00 00 00 00 00 00 00 4a 00 00 00 00"))
	got := make([]byte, len(sunscreen))
	xorKeyStream(got, []byte(sunscreen), chachaState(&key, 1, &nonce))
	want := unhex(`6e 2e 35 9a 25 68 f9 80 41 ba 07 28 dd 0d 69 81 e9 7e 7a ec 1d 43 60 c2 0a 27 af cc fd 9f ae 0b
		f9 1b 65 c5 52 47 33 ab 8f 59 3d ab cd 62 b3 57 16 39 d6 24 e6 51 52 ab 8f 53 0c 35 9f 08 61 d8
		07 ca 0d bf 50 0d 6a 61 56 a3 8e 08 8a 22 b6 5e 52 bc 51 4d 16 cc f8 06 81 8c e9 1a b7 79 37 36
		5a f9 0b bf 74 a3 5b e6 b4 0b 8e ed f2 78 5e 42 87 4d`)
	if !bytes.Equal(got, want) {
		t.Errorf("ciphertext = %x, want %x", got, want)
	}
}

// RFC 8439 section 2.5.2 and the edge cases of appendix A.3, which reach
// the final reduction's corners.
func TestPoly1305Vectors(t *testing.T) {
	r2, r1 := "02"+strings.Repeat("00", 15), "01"+strings.Repeat("00", 15)
	zero, ones := strings.Repeat("00", 16), strings.Repeat("ff", 16)
	rA := "01000000000000000400000000000000"
	for _, tc := range []struct {
		name, key, msg, want string
	}{
		{"2.5.2", "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b",
			hex.EncodeToString([]byte("Cryptographic Forum Research Group")), "a8061dc1305136c6c22b8baf0c0127a9"},
		{"A.3 #1", strings.Repeat("00", 32), strings.Repeat("00", 64), zero},
		{"A.3 #5", r2 + zero, ones, "03" + strings.Repeat("00", 15)},
		{"A.3 #6", r2 + ones, r2, "03" + strings.Repeat("00", 15)},
		{"A.3 #7", r1 + zero, ones + "f0" + strings.Repeat("ff", 15) + "11" + strings.Repeat("00", 15), "05" + strings.Repeat("00", 15)},
		{"A.3 #8", r1 + zero, ones + "fb" + strings.Repeat("fe", 15) + strings.Repeat("01", 16), zero},
		{"A.3 #9", r2 + zero, "fd" + strings.Repeat("ff", 15), "fa" + strings.Repeat("ff", 15)},
		{"A.3 #10", rA + zero, "e33594d7505e43b900000000000000003394d7505e4379cd01000000000000000000000000000000000000000000000001000000000000000000000000000000",
			"14000000000000005500000000000000"},
		{"A.3 #11", rA + zero, "e33594d7505e43b900000000000000003394d7505e4379cd010000000000000000000000000000000000000000000000",
			"13" + strings.Repeat("00", 15)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPoly1305(unhex(tc.key))
			p.write(unhex(tc.msg), false)
			if got := p.sum(); hex.EncodeToString(got[:]) != tc.want {
				t.Errorf("tag = %x, want %s", got, tc.want)
			}
		})
	}
}

// draft-irtf-cfrg-xchacha section 2.2.1.
func TestHChaCha20Vector(t *testing.T) {
	key := [KeySize]byte(seq(0, 32))
	got := hChaCha20(&key, unhex("00 00 00 09 00 00 00 4a 00 00 00 00 31 41 59 27"))
	if want := "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc"; hex.EncodeToString(got[:]) != want {
		t.Errorf("subkey = %x, want %s", got, want)
	}
}

// RFC 8439 section 2.8.2 (ChaCha20-Poly1305, a 12-byte nonce) and
// draft-irtf-cfrg-xchacha appendix A.1 (XChaCha20-Poly1305): the same key,
// additional data and message.
func TestAEADVectors(t *testing.T) {
	key := [KeySize]byte(seq(0x80, 32))
	ad := unhex("50 51 52 53 c0 c1 c2 c3 c4 c5 c6 c7")
	nonce12 := [12]byte(unhex("07 00 00 00 40 41 42 43 44 45 46 47"))
	nonce24 := [NonceSize]byte(seq(0x40, 24))
	for _, tc := range []struct {
		name string
		seal func(plain []byte) []byte
		open func(box []byte) ([]byte, error)
		want string // ciphertext and tag
	}{
		{
			name: "RFC 8439 2.8.2",
			seal: func(plain []byte) []byte { return sealIETF(nil, &key, &nonce12, plain, ad) },
			open: func(box []byte) ([]byte, error) { return openIETF(nil, &key, &nonce12, box, ad) },
			want: `d3 1a 8d 34 64 8e 60 db 7b 86 af bc 53 ef 7e c2 a4 ad ed 51 29 6e 08 fe a9 e2 b5 a7 36 ee 62 d6
				3d be a4 5e 8c a9 67 12 82 fa fb 69 da 92 72 8b 1a 71 de 0a 9e 06 0b 29 05 d6 a5 b6 7e cd 3b 36
				92 dd bd 7f 2d 77 8b 8c 98 03 ae e3 28 09 1b 58 fa b3 24 e4 fa d6 75 94 55 85 80 8b 48 31 d7 bc
				3f f4 de f0 8e 4b 7a 9d e5 76 d2 65 86 ce c6 4b 61 16
				1a e1 0b 59 4f 09 e2 6a 7e 90 2e cb d0 60 06 91`,
		},
		{
			name: "XChaCha20-Poly1305 A.1",
			seal: func(plain []byte) []byte { return Seal(nil, &key, &nonce24, plain, ad) },
			open: func(box []byte) ([]byte, error) { return Open(nil, &key, &nonce24, box, ad) },
			want: `bd 6d 17 9d 3e 83 d4 3b 95 76 57 94 93 c0 e9 39 57 2a 17 00 25 2b fa cc be d2 90 2c 21 39 6c bb
				73 1c 7f 1b 0b 4a a6 44 0b f3 a8 2f 4e da 7e 39 ae 64 c6 70 8c 54 c2 16 cb 96 b7 2e 12 13 b4 52
				2f 8c 9b a4 0d b5 d9 45 b1 1b 69 b9 82 c1 bb 9e 3f 3f ac 2b c3 69 48 8f 76 b2 38 35 65 d3 ff f9
				21 f9 66 4c 97 63 7d a9 76 88 12 f6 15 c6 8b 13 b5 2e
				c0 87 59 24 c1 c7 98 79 47 de af d8 78 0a cf 49`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			box := tc.seal([]byte(sunscreen))
			if want := unhex(tc.want); !bytes.Equal(box, want) {
				t.Fatalf("sealed = %x, want %x", box, want)
			}
			plain, err := tc.open(box)
			if err != nil || string(plain) != sunscreen {
				t.Errorf("opened = %q, %v", plain, err)
			}
		})
	}
}
