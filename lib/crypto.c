/* crypto.c: base64, AES-256-GCM, scrypt, SHA-256, HMAC and randomness via OpenSSL. */
/* SHA256_Init and friends run without loading OpenSSL's providers, which costs
 * about 2 ms per process; programs that only hash keys should not pay that. */
#define OPENSSL_API_COMPAT 0x10100000L
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/sha.h>

#include "internal.h"

#define SCRYPT_N	32768u		/* 2^15 */
#define SCRYPT_R	8u
#define SCRYPT_P	1u
#define SCRYPT_MAXMEM	(64u * 1024 * 1024)

/* Fills buf with len bytes from the kernel CSPRNG; 0 on success. */
int
bl_random(void *buf, size_t len)
{
	unsigned char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		n = getrandom(p, len > 256 ? 256 : len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Overwrites len bytes at p so the compiler cannot drop it. */
void
bl_wipe(void *p, size_t len)
{
	if (p != NULL && len > 0)
		explicit_bzero(p, len);
}

/* Wipes then frees a buffer of len bytes. */
void
bl_free_wipe(void *p, size_t len)
{
	bl_wipe(p, len);
	free(p);
}

/* Standard base64 with padding; returns a NUL-terminated string or NULL. */
char *
bl_b64_encode(const unsigned char *in, size_t len, size_t *outlen)
{
	char	*out;
	size_t	 n;

	if (len > (SIZE_MAX / 4 - 1) * 3 || len > INT_MAX / 4 * 3)
		return NULL;
	n = (len + 2) / 3 * 4;
	if ((out = malloc(n + 1)) == NULL)
		return NULL;
	EVP_EncodeBlock((unsigned char *)out, in, (int)len);
	out[n] = '\0';
	if (outlen != NULL)
		*outlen = n;
	return out;
}

/* 1 for the 64 characters of the standard base64 alphabet. */
static const unsigned char b64_alphabet[256] = {
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
	['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
	['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
	['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
	['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
	['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
	['7'] = 1, ['8'] = 1, ['9'] = 1, ['+'] = 1, ['/'] = 1,
};

static int
b64_char(unsigned char c)
{
	return b64_alphabet[c];
}

/* Length that canonical base64 s decodes to, or SIZE_MAX if malformed. */
size_t
bl_b64_decoded_len(const char *s, size_t len)
{
	size_t	 i, pad = 0;

	if (len % 4 != 0)
		return SIZE_MAX;
	if (len > 0 && s[len - 1] == '=')
		pad++;
	if (len > 1 && s[len - 2] == '=')
		pad++;
	for (i = 0; i < len - pad; i++)
		if (!b64_char((unsigned char)s[i]))
			return SIZE_MAX;
	return len / 4 * 3 - pad;
}

/*
 * Decodes canonical standard base64 (padding required, no whitespace, unused
 * bits zero). Returns a malloc'd buffer (plus a NUL), or NULL with errno EINVAL
 * if s is not canonical, ENOMEM if memory ran out.
 */
unsigned char *
bl_b64_decode(const char *s, size_t len, size_t *outlen)
{
	unsigned char	*out;
	unsigned char	 last[3];
	char		 re[5];
	size_t		 n;

	if ((n = bl_b64_decoded_len(s, len)) == SIZE_MAX || len > INT_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if ((out = malloc(len / 4 * 3 + 1)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (len > 0 && EVP_DecodeBlock(out, (const unsigned char *)s, (int)len) < 0)
		goto bad;
	/* Canonical: the last quantum re-encodes to itself. */
	if (len > 0) {
		size_t q = n - (n % 3 ? n % 3 : 3);
		memcpy(last, out + q, n - q);
		EVP_EncodeBlock((unsigned char *)re, last, (int)(n - q));
		if (memcmp(re, s + len - 4, 4) != 0)
			goto bad;
	}
	out[n] = '\0';
	*outlen = n;
	return out;
bad:
	bl_free_wipe(out, len / 4 * 3 + 1);
	errno = EINVAL;
	return NULL;
}

/* url-safe base64 without padding; returns a NUL-terminated string or NULL. */
char *
bl_b64url_encode(const unsigned char *in, size_t len, size_t *outlen)
{
	char	*out;
	size_t	 n, i;

	if ((out = bl_b64_encode(in, len, &n)) == NULL)
		return NULL;
	while (n > 0 && out[n - 1] == '=')
		out[--n] = '\0';
	for (i = 0; i < n; i++) {
		if (out[i] == '+')
			out[i] = '-';
		else if (out[i] == '/')
			out[i] = '_';
	}
	if (outlen != NULL)
		*outlen = n;
	return out;
}

/* Decodes canonical url-safe base64 without padding; NULL with errno as bl_b64_decode. */
unsigned char *
bl_b64url_decode(const char *s, size_t len, size_t *outlen)
{
	unsigned char	*out = NULL;
	char		*tmp;
	size_t		 i, n;
	int		 saved;

	if (len % 4 == 1 || len > SIZE_MAX - 4) {
		errno = EINVAL;
		return NULL;
	}
	n = (len + 3) / 4 * 4;
	if ((tmp = malloc(n)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	errno = EINVAL;
	for (i = 0; i < len; i++) {
		char c = s[i];
		if (c == '-')
			c = '+';
		else if (c == '_')
			c = '/';
		else if (c == '+' || c == '/' || c == '=')
			goto out;
		tmp[i] = c;
	}
	for (; i < n; i++)
		tmp[i] = '=';
	out = bl_b64_decode(tmp, n, outlen);
out:
	saved = errno;
	bl_free_wipe(tmp, n);
	errno = saved;
	return out;
}

/* SHA-256 of buf; 0 on success. */
int
bl_sha256(const void *buf, size_t len, unsigned char out[BL_HASH_BYTES])
{
	SHA256_CTX	 c;

	if (!SHA256_Init(&c) || !SHA256_Update(&c, buf, len) || !SHA256_Final(out, &c))
		return -1;
	OPENSSL_cleanse(&c, sizeof(c));
	return 0;
}

/* The 16 bytes raw as a key of BL_KEY_LEN url-safe base64 characters and its SHA-256 (raw wiped). */
static int
key_of(unsigned char raw[16], char key[BL_KEY_LEN + 1], unsigned char hash[BL_HASH_BYTES])
{
	char		*s;

	if ((s = bl_b64url_encode(raw, 16, NULL)) == NULL) {
		bl_wipe(raw, 16);
		return -1;
	}
	memcpy(key, s, BL_KEY_LEN + 1);
	bl_free_wipe(s, BL_KEY_LEN + 1);
	bl_wipe(raw, 16);
	return bl_sha256(key, BL_KEY_LEN, hash);
}

/*
 * A new key of BL_KEY_LEN url-safe base64 characters (16 random bytes) and
 * the SHA-256 of it, the only form the database keeps; 0 on success.
 */
int
bl_new_key(char key[BL_KEY_LEN + 1], unsigned char hash[BL_HASH_BYTES])
{
	unsigned char	 raw[16];

	if (bl_random(raw, sizeof(raw)) != 0)
		return -1;
	return key_of(raw, key, hash);
}

/*
 * A secret's key (docs/API.md, "Keys"): 4 bytes of at (its expiry in Unix
 * seconds, BL_KEY_AT(), big-endian) and 12 random bytes, as BL_KEY_LEN
 * url-safe base64 characters, and its SHA-256. The store finds the row under
 * (at, hash), so the rows a cleanup step removes share their index pages
 * (docs/PERFORMANCE.md, "Cleanup in steps"); 0 on success.
 */
int
bl_new_key_at(char key[BL_KEY_LEN + 1], unsigned char hash[BL_HASH_BYTES], uint32_t at)
{
	unsigned char	 raw[16];

	raw[0] = (unsigned char)(at >> 24);
	raw[1] = (unsigned char)(at >> 16);
	raw[2] = (unsigned char)(at >> 8);
	raw[3] = (unsigned char)at;
	if (bl_random(raw + 4, sizeof(raw) - 4) != 0)
		return -1;
	return key_of(raw, key, hash);
}

/* One url-safe base64 character's value; -1 for another character. */
static int
b64url_value(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 :
	    c >= '0' && c <= '9' ? c - '0' + 52 : c == '-' ? 62 : c == '_' ? 63 : -1;
}

/*
 * The first 4 bytes of a key (BL_KEY_LEN url-safe base64 characters, checked
 * by bl_key_valid()) as a number: what bl_new_key_at() put there. A key made
 * before version 8 has random bytes there (the store then finds it among
 * the rows stored before, lib/secret.c).
 */
int64_t
bl_key_at(const char *key)
{
	uint64_t	 v = 0;
	int		 i, d;

	/* 6 characters carry 36 bits: the first 32 are the 4 bytes */
	for (i = 0; i < 6; i++) {
		if ((d = b64url_value((unsigned char)key[i])) < 0)
			return 0;
		v = v << 6 | (uint64_t)d;
	}
	return (int64_t)(v >> 4);
}

/*
 * The low-level digests HMAC runs over, so that hashing a client address on
 * every request does not load OpenSSL's providers: SHA-256, and SHA-1 for
 * HOTP. Both take 64-byte blocks.
 */
union hmac_ctx {
	SHA256_CTX	 s256;
	SHA_CTX		 s1;
};
struct hmac_digest {
	size_t	 len;
	int	(*init)(union hmac_ctx *);
	int	(*update)(union hmac_ctx *, const void *, size_t);
	int	(*final)(unsigned char *, union hmac_ctx *);
};
#define HMAC_BLOCK	64
typedef char hmac_block_check[SHA256_CBLOCK == HMAC_BLOCK && SHA_CBLOCK == HMAC_BLOCK ? 1 : -1];

static int s256_init(union hmac_ctx *c) { return SHA256_Init(&c->s256); }
static int s256_update(union hmac_ctx *c, const void *b, size_t n) { return SHA256_Update(&c->s256, b, n); }
static int s256_final(unsigned char *o, union hmac_ctx *c) { return SHA256_Final(o, &c->s256); }
static int s1_init(union hmac_ctx *c) { return SHA1_Init(&c->s1); }
static int s1_update(union hmac_ctx *c, const void *b, size_t n) { return SHA1_Update(&c->s1, b, n); }
static int s1_final(unsigned char *o, union hmac_ctx *c) { return SHA1_Final(o, &c->s1); }

static const struct hmac_digest hmac_sha256_md = { BL_HASH_BYTES, s256_init, s256_update, s256_final };
static const struct hmac_digest hmac_sha1_md = { SHA_DIGEST_LENGTH, s1_init, s1_update, s1_final };

/* md's digest of pad (one block) followed by buf into out; 0 on success. */
static int
hmac_pass(const struct hmac_digest *md, union hmac_ctx *c, const unsigned char *pad,
    const void *buf, size_t len, unsigned char *out)
{
	return md->init(c) && md->update(c, pad, HMAC_BLOCK) &&
	    md->update(c, buf, len) && md->final(out, c) ? 0 : -1;
}

/* HMAC (RFC 2104) with the digest md, md->len bytes into out; 0 on success. */
static int
hmac(const struct hmac_digest *md, const unsigned char *key, size_t keylen,
    const void *buf, size_t len, unsigned char *out)
{
	unsigned char	 k[HMAC_BLOCK], pad[HMAC_BLOCK], inner[BL_HASH_BYTES];
	union hmac_ctx	 c;
	size_t		 i;
	int		 rc = -1;

	memset(k, 0, sizeof(k));
	if (keylen > sizeof(k)) {
		/* a key longer than the block is hashed first */
		if (!md->init(&c) || !md->update(&c, key, keylen) || !md->final(k, &c))
			goto out;
	} else if (keylen > 0)
		memcpy(k, key, keylen);
	for (i = 0; i < sizeof(k); i++)
		pad[i] = k[i] ^ 0x36;
	if (hmac_pass(md, &c, pad, buf, len, inner) != 0)
		goto out;
	for (i = 0; i < sizeof(k); i++)
		pad[i] = k[i] ^ 0x5c;
	if (hmac_pass(md, &c, pad, inner, md->len, out) != 0)
		goto out;
	rc = 0;
out:
	OPENSSL_cleanse(k, sizeof(k));
	OPENSSL_cleanse(pad, sizeof(pad));
	OPENSSL_cleanse(inner, sizeof(inner));
	OPENSSL_cleanse(&c, sizeof(c));
	return rc;
}

/* HMAC-SHA-256 (RFC 2104); 0 on success. */
int
bl_hmac_sha256(const unsigned char *key, size_t keylen, const void *buf,
    size_t len, unsigned char out[BL_HASH_BYTES])
{
	return hmac(&hmac_sha256_md, key, keylen, buf, len, out);
}

/*
 * HOTP (RFC 4226, 5.3): HMAC-SHA-1 of the counter as 8 big-endian bytes,
 * dynamically truncated to 31 bits, modulo 10^digits (6 to 8). TOTP (RFC
 * 6238) is this with the counter floor(unix time / 30). -1 on failure.
 */
int64_t
bl_hotp(const unsigned char *key, size_t keylen, uint64_t counter, int digits)
{
	unsigned char	 msg[8], mac[SHA_DIGEST_LENGTH];
	uint32_t	 bin, mod = 1;
	int		 i, off;

	if (digits < 6 || digits > 8)
		return -1;
	for (i = 7; i >= 0; i--) {
		msg[i] = (unsigned char)(counter & 0xff);
		counter >>= 8;
	}
	if (hmac(&hmac_sha1_md, key, keylen, msg, sizeof(msg), mac) != 0)
		return -1;
	off = mac[SHA_DIGEST_LENGTH - 1] & 0x0f;
	bin = (uint32_t)(mac[off] & 0x7f) << 24 | (uint32_t)mac[off + 1] << 16 |
	    (uint32_t)mac[off + 2] << 8 | mac[off + 3];
	OPENSSL_cleanse(mac, sizeof(mac));
	for (i = 0; i < digits; i++)
		mod *= 10;
	return (int64_t)(bin % mod);
}

/* RFC 4648 base32 of len bytes, upper case, no padding, into out (8 * ceil(len / 5) + 1 bytes); its length. */
size_t
bl_base32_encode(const unsigned char *in, size_t len, char *out)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	uint32_t	 buf = 0;
	size_t		 i, n = 0;
	int		 bits = 0;

	for (i = 0; i < len; i++) {
		buf = (buf << 8) | in[i];
		bits += 8;
		while (bits >= 5) {
			out[n++] = abc[(buf >> (bits - 5)) & 31];
			bits -= 5;
		}
	}
	if (bits > 0)
		out[n++] = abc[(buf << (5 - bits)) & 31];
	out[n] = '\0';
	buf = 0;
	return n;
}

/*
 * Loads OpenSSL without reading openssl.cnf (nothing in it applies here) and
 * without filling the legacy name tables: the first fetch would otherwise copy
 * every legacy cipher and digest name into the provider name map (about 3 M
 * instructions per process). Ciphers and KDFs are fetched by their provider
 * names, which stay available.
 */
static int
crypto_init(void)
{
	return OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG |
	    OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ADD_ALL_DIGESTS,
	    NULL) == 1 ? 0 : -1;
}

/*
 * AES-256-GCM, called through the default provider's own implementation
 * without fetching it. OpenSSL 3.0 builds every algorithm of an operation on
 * the first fetch of any of them (2.9 M instructions for AES-256-GCM from the
 * default context), and a fetch from any library context first fills that
 * context's name map from the legacy tables of public-key methods (0.19 M):
 * a CGI process that reads one sealed secret paid 0.34 M instructions, a
 * fifth of a one-time read, before its first byte was decrypted (callgrind;
 * docs/PERFORMANCE.md, "Where a CGI request spends its time"). So the
 * default provider is loaded, its table of ciphers queried for AES-256-GCM,
 * and that entry's functions (new context, init, update, final, the tag as a
 * parameter) are called directly with the provider's context: the same
 * implementation, AES-NI and CLMUL included, through public calls only
 * (openssl/core_dispatch.h), with no fetch, no name map and no library
 * context of its own. If any step fails, the cipher is fetched from the
 * default context and run through EVP as before.
 */
static struct {
	OSSL_PROVIDER			*deflt;
	void				*provctx;
	OSSL_FUNC_cipher_newctx_fn	*newctx;
	OSSL_FUNC_cipher_freectx_fn	*freectx;
	OSSL_FUNC_cipher_encrypt_init_fn *einit;
	OSSL_FUNC_cipher_decrypt_init_fn *dinit;
	OSSL_FUNC_cipher_update_fn	*update;
	OSSL_FUNC_cipher_final_fn	*final;
	OSSL_FUNC_cipher_get_ctx_params_fn *get_params;
	OSSL_FUNC_cipher_set_ctx_params_fn *set_params;
	EVP_CIPHER			*cipher;	/* the fallback */
} gcm;

/* 1 if the list of names "A:B:C" holds name. */
static int
has_name(const char *names, const char *name)
{
	size_t	 len = strlen(name), n;

	while (*names != '\0') {
		n = strcspn(names, ":");
		if (n == len && strncasecmp(names, name, len) == 0)
			return 1;
		names += n + (names[n] == ':');
	}
	return 0;
}

/*
 * Frees what gcm_setup() set up, when OpenSSL cleans up (a FastCGI
 * responder's exit, the leak checks' OPENSSL_cleanup()); a CGI process
 * ends with _exit() and skips it.
 */
static void
gcm_free(void)
{
	EVP_CIPHER_free(gcm.cipher);
	if (gcm.deflt != NULL)
		OSSL_PROVIDER_unload(gcm.deflt);
	memset(&gcm, 0, sizeof(gcm));
}

/* Takes the functions of the dispatch table d; 1 when every one is there. */
static int
gcm_functions(const OSSL_DISPATCH *d)
{
	for (; d->function_id != 0; d++)
		switch (d->function_id) {
		case OSSL_FUNC_CIPHER_NEWCTX: gcm.newctx = OSSL_FUNC_cipher_newctx(d); break;
		case OSSL_FUNC_CIPHER_FREECTX: gcm.freectx = OSSL_FUNC_cipher_freectx(d); break;
		case OSSL_FUNC_CIPHER_ENCRYPT_INIT: gcm.einit = OSSL_FUNC_cipher_encrypt_init(d); break;
		case OSSL_FUNC_CIPHER_DECRYPT_INIT: gcm.dinit = OSSL_FUNC_cipher_decrypt_init(d); break;
		case OSSL_FUNC_CIPHER_UPDATE: gcm.update = OSSL_FUNC_cipher_update(d); break;
		case OSSL_FUNC_CIPHER_FINAL: gcm.final = OSSL_FUNC_cipher_final(d); break;
		case OSSL_FUNC_CIPHER_GET_CTX_PARAMS:
			gcm.get_params = OSSL_FUNC_cipher_get_ctx_params(d);
			break;
		case OSSL_FUNC_CIPHER_SET_CTX_PARAMS:
			gcm.set_params = OSSL_FUNC_cipher_set_ctx_params(d);
			break;
		default: break;
		}
	return gcm.newctx != NULL && gcm.freectx != NULL && gcm.einit != NULL &&
	    gcm.dinit != NULL && gcm.update != NULL && gcm.final != NULL &&
	    gcm.get_params != NULL && gcm.set_params != NULL;
}

/*
 * Sets up AES-256-GCM once per process: 1 when the provider's functions are
 * called directly (gcm.newctx), 0 when the EVP cipher is (gcm.cipher), -1
 * when neither is available (out of memory: the next call tries again).
 */
static int
gcm_setup(void)
{
	static int		 atexit_set;
	const OSSL_ALGORITHM	*a;
	int			 no_store;

	if (gcm.newctx != NULL)
		return 1;
	if (gcm.cipher != NULL)
		return 0;
	if (crypto_init() != 0 || (!atexit_set && !(atexit_set = OPENSSL_atexit(gcm_free))))
		return -1;
	if (gcm.deflt == NULL)
		gcm.deflt = OSSL_PROVIDER_load(NULL, "default");
	if (gcm.deflt != NULL &&
	    (gcm.provctx = OSSL_PROVIDER_get0_provider_ctx(gcm.deflt)) != NULL &&
	    (a = OSSL_PROVIDER_query_operation(gcm.deflt, OSSL_OP_CIPHER, &no_store)) != NULL) {
		for (; a->algorithm_names != NULL; a++)
			if (has_name(a->algorithm_names, "AES-256-GCM"))
				break;
		if (a->algorithm_names != NULL && gcm_functions(a->implementation))
			return 1;
		gcm.newctx = NULL;
	}
	gcm.cipher = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
	return gcm.cipher != NULL ? 0 : -1;
}

/*
 * 1 when AES-256-GCM runs through the default provider's functions, without
 * a fetch (tests/unit/test_crypto.c: a change of OpenSSL that sends it back
 * to the slow fetch is noticed).
 */
int
bl_aes_gcm_direct(void)
{
	return gcm_setup() == 1;
}

/*
 * AES-256-GCM through the provider's functions (gcm_setup() returned 1):
 * enc 1 encrypts len bytes of in to out and writes the tag into tag, enc 0
 * decrypts and checks tag. 0 on success (the tag verifies).
 */
static int
gcm_direct(int enc, const unsigned char key[32], const unsigned char iv[BL_IV_BYTES],
    const unsigned char *in, size_t len, unsigned char *out, unsigned char tag[BL_TAG_BYTES])
{
	OSSL_PARAM	 p[2];
	void		*ctx;
	size_t		 n = 0, fin = 0;
	int		 ok;

	if ((ctx = gcm.newctx(gcm.provctx)) == NULL)
		return -1;
	p[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, BL_TAG_BYTES);
	p[1] = OSSL_PARAM_construct_end();
	ok = (enc ? gcm.einit(ctx, key, 32, iv, BL_IV_BYTES, NULL) :
	    gcm.dinit(ctx, key, 32, iv, BL_IV_BYTES, NULL)) == 1 &&
	    (enc || gcm.set_params(ctx, p) == 1) &&
	    (len == 0 || gcm.update(ctx, out, &n, len, in, len) == 1) && n == len &&
	    gcm.final(ctx, out + n, &fin, 0) == 1 && fin == 0 &&
	    (!enc || gcm.get_params(ctx, p) == 1);
	gcm.freectx(ctx);
	return ok ? 0 : -1;
}

/* AES-256-GCM, no AAD; writes ptlen bytes of ciphertext then the 16-byte tag. */
int
bl_aes_gcm_encrypt(const unsigned char key[32], const unsigned char iv[BL_IV_BYTES],
    const unsigned char *pt, size_t ptlen, unsigned char *out)
{
	EVP_CIPHER_CTX	*ctx = NULL;
	int		 n, rc = -1, how;
	size_t		 off = 0;

	if ((how = gcm_setup()) == 1)
		return gcm_direct(1, key, iv, pt, ptlen, out, out + ptlen);
	if (how < 0 || (ctx = EVP_CIPHER_CTX_new()) == NULL)
		goto out;
	if (EVP_EncryptInit_ex(ctx, gcm.cipher, NULL, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, BL_IV_BYTES, NULL) != 1 ||
	    EVP_EncryptInit_ex(ctx, NULL, NULL, key, iv) != 1)
		goto out;
	while (off < ptlen) {
		int chunk = ptlen - off > (1 << 30) ? (1 << 30) : (int)(ptlen - off);
		if (EVP_EncryptUpdate(ctx, out + off, &n, pt + off, chunk) != 1)
			goto out;
		off += (size_t)n;
	}
	if (EVP_EncryptFinal_ex(ctx, out + off, &n) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, BL_TAG_BYTES, out + ptlen) != 1)
		goto out;
	rc = 0;
out:
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

/* AES-256-GCM decryption of ct (tag last); 0 if the tag verifies. */
int
bl_aes_gcm_decrypt(const unsigned char key[32], const unsigned char iv[BL_IV_BYTES],
    const unsigned char *ct, size_t ctlen, unsigned char *out)
{
	EVP_CIPHER_CTX	*ctx = NULL;
	unsigned char	 tag[BL_TAG_BYTES];
	size_t		 len, off = 0;
	int		 n, rc = -1, how;

	if (ctlen < BL_TAG_BYTES)
		return -1;
	len = ctlen - BL_TAG_BYTES;
	memcpy(tag, ct + len, BL_TAG_BYTES);
	if ((how = gcm_setup()) == 1) {
		rc = gcm_direct(0, key, iv, ct, len, out, tag);
		goto out;
	}
	if (how < 0 || (ctx = EVP_CIPHER_CTX_new()) == NULL)
		goto out;
	if (EVP_DecryptInit_ex(ctx, gcm.cipher, NULL, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, BL_IV_BYTES, NULL) != 1 ||
	    EVP_DecryptInit_ex(ctx, NULL, NULL, key, iv) != 1)
		goto out;
	while (off < len) {
		int chunk = len - off > (1 << 30) ? (1 << 30) : (int)(len - off);
		if (EVP_DecryptUpdate(ctx, out + off, &n, ct + off, chunk) != 1)
			goto out;
		off += (size_t)n;
	}
	if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, BL_TAG_BYTES, tag) != 1 ||
	    EVP_DecryptFinal_ex(ctx, out + off, &n) != 1)
		goto out;
	rc = 0;
out:
	if (rc != 0 && len > 0)
		OPENSSL_cleanse(out, len);
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

static int
scrypt(const char *pass, size_t passlen, const unsigned char *salt,
    unsigned char out[BL_HASH_BYTES])
{
	if (crypto_init() != 0)
		return -1;
	return EVP_PBE_scrypt(pass, passlen, salt, 16, SCRYPT_N, SCRYPT_R,
	    SCRYPT_P, SCRYPT_MAXMEM, out, BL_HASH_BYTES) == 1 ? 0 : -1;
}

/* Hashes a passphrase: 16 random salt bytes, then scrypt(N=2^15, r=8, p=1). */
int
bl_pass_hash(const char *pass, size_t len, unsigned char out[BL_PASSHASH_BYTES])
{
	if (bl_random(out, 16) != 0)
		return -1;
	return scrypt(pass, len, out, out + 16);
}

/* 1 if pass matches the stored salt+hash (constant-time compare), 0 if not, -1 on error. */
int
bl_pass_verify(const char *pass, size_t len, const unsigned char stored[BL_PASSHASH_BYTES])
{
	unsigned char	 h[BL_HASH_BYTES];
	int		 rc;

	if (scrypt(pass, len, stored, h) != 0)
		return -1;
	rc = CRYPTO_memcmp(h, stored + 16, BL_HASH_BYTES) == 0;
	OPENSSL_cleanse(h, sizeof(h));
	return rc;
}

/* 1 if the len bytes at a and b are equal, in time independent of where they differ. */
int
bl_ct_equal(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

/*
 * The key commitment of a 256-bit AES key (docs/API.md "Key commitment"):
 * HMAC-SHA-256 keyed with the key over the label, 32 bytes. AES-GCM is not
 * key-committing; this value is, so a client can tell a wrong key from the
 * metadata before it spends a view. 0 on success.
 */
int
bl_key_commitment(const unsigned char key[32], unsigned char out[BL_COMMIT_BYTES])
{
	static const char label[] = "burnlink key commitment v1";

	return bl_hmac_sha256(key, 32, label, sizeof(label) - 1, out);
}
