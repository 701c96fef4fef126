/*
 * The tunnel's OpenSSL calls per packet in C, without .NET: what one 1,420-byte seal costs through EVP when only
 * EVP_CipherUpdate runs per packet (what `openssl speed -evp` times) and when the whole per-packet sequence runs
 * (nonce, update, final, tag: OpenSslChaCha20Poly1305Key.Seal). User CPU time of this thread, best of 5 rounds.
 * Build: cc -O2 -o evp-sequence evp-sequence.c -lcrypto      Run: ./evp-sequence update|packet [bytes=1420]
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double user_seconds(void)
{
    struct rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
    static unsigned char buffer[65536 + 16] __attribute__((aligned(64)));
    unsigned char key[32] = { 1 }, nonce[12] = { 0 };
    int whole = argc > 1 && strcmp(argv[1], "packet") == 0;
    int length = argc > 2 ? atoi(argv[2]) : 1420, written, round, i;
    const int packets = 400000;
    double best = 1e9;
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "ChaCha20-Poly1305", NULL);
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();

    if (cipher == NULL || context == NULL || length < 0 || length > 65536
        || EVP_CipherInit_ex2(context, cipher, key, nonce, 1, NULL) != 1) {
        fprintf(stderr, "evp-sequence: no ChaCha20-Poly1305 context\n");
        return 1;
    }
    for (round = 0; round < 5; round++) {
        double start = user_seconds(), spent;
        for (i = 0; i < packets; i++) {
            if (whole) {
                OSSL_PARAM tag[2] = {
                    OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, buffer + length, 16),
                    OSSL_PARAM_construct_end()
                };
                memcpy(nonce + 4, &i, sizeof(i));
                EVP_CipherInit_ex2(context, NULL, NULL, nonce, -1, NULL);
                EVP_CipherUpdate(context, buffer, &written, buffer, length);
                EVP_CipherFinal_ex(context, buffer + length, &written);
                EVP_CIPHER_CTX_get_params(context, tag);
            } else {
                EVP_CipherUpdate(context, buffer, &written, buffer, length);
            }
        }
        spent = (user_seconds() - start) / packets * 1e6;
        if (spent < best)
            best = spent;
    }
    printf("evp-sequence %s: %d B, %.3f us/packet\n", whole ? "packet" : "update", length, best);
    EVP_CIPHER_CTX_free(context);
    EVP_CIPHER_free(cipher);
    return 0;
}
