/*
 * udplimit: the C reference beside Salvo's figures in `salvo lab` (and by hand). How fast the kernel's UDP
 * path goes with no runtime in the way: a sender, a receiver and a request/response pair over IPv4.
 *
 *   udplimit recv     [-a ADDR] -p PORT [-m recvfrom|recvmmsg|gro] [-t SECS] [-W FIRSTWAIT]
 *   udplimit send     [-a ADDR] -p PORT [-m sendto|sendmmsg|gso] [-s SIZE] [-t SECS] [-g SEGS] [-U] [-k]
 *   udplimit ppserver [-a ADDR] -p PORT [-m poll|recvfrom|recvmsg|recvmmsg] [-r RESPBYTES] [-t SECS] [-I IDLESECS]
 *   udplimit ppclient [-a ADDR] -p PORT [-m poll|recvfrom|recvmsg|recvmmsg] [-n INFLIGHT] [-q BYTES] [-t SECS] [-w WARMUP]
 *
 * The request/response pair's -m is how each end waits for and takes what it receives: poll(2) then a
 * non-blocking recvfrom (the default), or one blocking recvfrom, recvmsg or recvmmsg(MSG_WAITFORONE, up to 64),
 * each wait bounded by a 100 ms SO_RCVTIMEO. Replies and requests go out with sendto.
 *
 * ADDR is the receiver's or server's address (127.0.0.1 unless given); recv and ppserver take -p 0 and print the
 * port they got. READY lines go to stderr when a socket is open; the last line on stdout is "RESULT key=value ...".
 * Every loop ends at a deadline.
 * Build: cc -O2 -Wall -Wextra -o udplimit udplimit.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103 /* include/uapi/linux/udp.h */
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

enum { BATCH = 64, MAX_PAYLOAD = 65507, MAX_SEGMENTS = 64, SOCKET_BUFFER = 4 << 20, LATENCY_BUCKETS = 100000 };

struct options {
    const char *address, *method;
    int port, size, segments, unconnected, keep_going, response, inflight, request;
    double seconds, first_wait, idle, warmup;
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void cpu_seconds(double *user, double *system)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    *user = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6;
    *system = (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
}

static int fail(const char *what)
{
    fprintf(stderr, "udplimit: %s: %s\n", what, strerror(errno));
    return 1;
}

static int endpoint(const struct options *o, struct sockaddr_in *to)
{
    memset(to, 0, sizeof *to);
    to->sin_family = AF_INET;
    to->sin_port = htons((uint16_t)o->port);
    if (inet_pton(AF_INET, o->address, &to->sin_addr) != 1) {
        fprintf(stderr, "udplimit: -a %s is not an IPv4 address\n", o->address);
        return -1;
    }
    return 0;
}

/* A UDP socket with 4 MiB buffers asked for (the kernel caps them at rmem_max/wmem_max), as Salvo's receivers ask. */
static int open_socket(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0), size = SOCKET_BUFFER;
    if (fd >= 0) {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    }
    return fd;
}

/* The port a socket bound to port 0 got, for the READY line. */
static int bound_port(int fd)
{
    struct sockaddr_in at;
    socklen_t length = sizeof at;
    return getsockname(fd, (struct sockaddr *)&at, &length) == 0 ? ntohs(at.sin_port) : -1;
}

static int wait_readable(int fd, double seconds)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int ms = seconds <= 0 ? 0 : (int)(seconds * 1000) + 1;
    return poll(&p, 1, ms);
}

/* What the request/response loops took in one receive: up to BATCH messages, each with its sender. */
static char pp_buffers[BATCH][MAX_PAYLOAD + 1];
static struct sockaddr_in pp_from[BATCH];
static ssize_t pp_length[BATCH];

static int pp_method_known(const char *how)
{
    return strcmp(how, "poll") == 0 || strcmp(how, "recvfrom") == 0 || strcmp(how, "recvmsg") == 0 || strcmp(how, "recvmmsg") == 0;
}

/* A blocking wait needs a bound, so that each loop still sees its deadline. */
static int pp_bound_waits(int fd, const char *how)
{
    struct timeval limit = { 0, 100000 };
    return strcmp(how, "poll") == 0 ? 0 : setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
}

/* Waits (at most poll_seconds with poll, else 100 ms) and takes what arrived; returns the messages taken. */
static int pp_take(int fd, const char *how, double poll_seconds)
{
    socklen_t length = sizeof pp_from[0];
    if (strcmp(how, "poll") == 0 || strcmp(how, "recvfrom") == 0) {
        int polled = strcmp(how, "poll") == 0;
        if (polled && wait_readable(fd, poll_seconds) <= 0)
            return 0;
        pp_length[0] = recvfrom(fd, pp_buffers[0], sizeof pp_buffers[0], polled ? MSG_DONTWAIT : 0, (struct sockaddr *)&pp_from[0], &length);
        return pp_length[0] < 0 ? 0 : 1;
    }
    if (strcmp(how, "recvmsg") == 0) {
        struct iovec v = { pp_buffers[0], sizeof pp_buffers[0] };
        struct msghdr h = { .msg_name = &pp_from[0], .msg_namelen = sizeof pp_from[0], .msg_iov = &v, .msg_iovlen = 1 };
        pp_length[0] = recvmsg(fd, &h, 0);
        return pp_length[0] < 0 ? 0 : 1;
    }
    static struct mmsghdr messages[BATCH];
    static struct iovec vectors[BATCH];
    for (int i = 0; i < BATCH; i++) {
        vectors[i] = (struct iovec){ pp_buffers[i], sizeof pp_buffers[i] };
        messages[i].msg_hdr = (struct msghdr){ .msg_name = &pp_from[i], .msg_namelen = sizeof pp_from[i], .msg_iov = &vectors[i], .msg_iovlen = 1 };
    }
    int taken = recvmmsg(fd, messages, BATCH, MSG_WAITFORONE, NULL);
    for (int i = 0; i < taken; i++)
        pp_length[i] = messages[i].msg_len;
    return taken < 0 ? 0 : taken;
}

/* Datagrams in one receive: with GRO the kernel joins segments of one size and says the size in a control message. */
static long long segments_of(struct msghdr *m, ssize_t length)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
            int size;
            memcpy(&size, CMSG_DATA(c), sizeof size);
            return size > 0 ? (length + size - 1) / size : 1;
        }
    }
    return 1;
}

static int receive(const struct options *o)
{
    int mmsg = strcmp(o->method, "recvmmsg") == 0, gro = strcmp(o->method, "gro") == 0;
    if (!mmsg && !gro && strcmp(o->method, "recvfrom") != 0) {
        fprintf(stderr, "udplimit: recv -m %s: expected recvfrom, recvmmsg or gro\n", o->method);
        return 2;
    }
    struct sockaddr_in at;
    if (endpoint(o, &at) != 0)
        return 2;
    int fd = open_socket(), on = 1;
    if (fd < 0)
        return fail("socket");
    if (bind(fd, (struct sockaddr *)&at, sizeof at) != 0)
        return fail("bind");
    if (gro && setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof on) != 0) {
        printf("RESULT mode=recv method=gro error=gro_unsupported\n");
        return fail("UDP_GRO");
    }
    size_t block = gro ? 65536 : 2048;
    char *buffers = malloc(block * BATCH);
    static char controls[BATCH][CMSG_SPACE(sizeof(int))];
    struct mmsghdr messages[BATCH];
    struct iovec vectors[BATCH];
    if (buffers == NULL)
        return fail("malloc");
    fprintf(stderr, "READY recv %s port %d\n", o->method, bound_port(fd));

    if (wait_readable(fd, o->first_wait) <= 0) {
        printf("RESULT mode=recv method=%s error=no_data\n", o->method);
        fprintf(stderr, "udplimit: no datagram within %.1f s\n", o->first_wait);
        return 1;
    }

    long long datagrams = 0, calls = 0, bytes = 0;
    double user0, system0, user1, system1;
    cpu_seconds(&user0, &system0);
    double start = now(), deadline = start + o->seconds;
    while (now() < deadline) {
        if (wait_readable(fd, 0.1) <= 0)
            continue;
        int batch = mmsg || gro ? BATCH : 1;
        for (int i = 0; i < batch; i++) {
            vectors[i] = (struct iovec){ .iov_base = buffers + block * i, .iov_len = block };
            messages[i].msg_hdr = (struct msghdr){ .msg_iov = &vectors[i], .msg_iovlen = 1,
                .msg_control = gro ? controls[i] : NULL, .msg_controllen = gro ? sizeof controls[i] : 0 };
        }
        int got;
        if (batch == 1) {
            /* One datagram per call, as a plain receive loop does: drain what is queued (64 at most, then look at
               the clock again) before waiting in poll once more. */
            for (got = 0; got < BATCH; got++) {
                ssize_t n = recvfrom(fd, buffers + block * got, block, MSG_DONTWAIT, NULL, NULL);
                if (n < 0)
                    break;
                calls++;
                messages[got].msg_len = (unsigned)n;
            }
            if (got == 0 && errno != EAGAIN && errno != EINTR)
                return fail("receive");
        } else {
            got = recvmmsg(fd, messages, (unsigned)batch, MSG_DONTWAIT, NULL);
            calls++;
            if (got < 0) {
                if (errno == EAGAIN || errno == EINTR)
                    continue;
                return fail("receive");
            }
        }
        for (int i = 0; i < got; i++) {
            bytes += messages[i].msg_len;
            datagrams += gro ? segments_of(&messages[i].msg_hdr, messages[i].msg_len) : 1;
        }
    }
    double elapsed = now() - start;
    cpu_seconds(&user1, &system1);
    printf("recv %s: %.3f s, %lld datagrams in %lld calls, %.0f datagrams/s\n", o->method, elapsed, datagrams, calls, datagrams / elapsed);
    double cpu = (user1 - user0) + (system1 - system0);
    printf("RESULT mode=recv method=%s dur=%.4f dgrams=%lld calls=%lld bytes=%lld pps=%.0f cpu_user=%.4f cpu_sys=%.4f cpu_pct=%.1f\n",
           o->method, elapsed, datagrams, calls, bytes, datagrams / elapsed, user1 - user0, system1 - system0, cpu * 100 / elapsed);
    free(buffers);
    return 0;
}

static int send_all(const struct options *o)
{
    int mmsg = strcmp(o->method, "sendmmsg") == 0, gso = strcmp(o->method, "gso") == 0;
    if (!mmsg && !gso && strcmp(o->method, "sendto") != 0) {
        fprintf(stderr, "udplimit: send -m %s: expected sendto, sendmmsg or gso\n", o->method);
        return 2;
    }
    if (o->size < 1 || o->size > MAX_PAYLOAD) {
        fprintf(stderr, "udplimit: -s must be 1 to %d\n", MAX_PAYLOAD);
        return 2;
    }
    struct sockaddr_in to;
    if (endpoint(o, &to) != 0)
        return 2;
    int fd = open_socket();
    if (fd < 0)
        return fail("socket");
    if (!o->unconnected && connect(fd, (struct sockaddr *)&to, sizeof to) != 0)
        return fail("connect");

    /* GSO: one send of up to 64 segments, at most 64 KiB in all (the kernel's UDP_MAX_SEGMENTS and IP's length). */
    int segments = 1;
    if (gso) {
        segments = o->segments > 0 ? o->segments : MAX_PAYLOAD / o->size;
        if (segments > MAX_SEGMENTS)
            segments = MAX_SEGMENTS;
        if (segments < 1 || (long)segments * o->size > MAX_PAYLOAD) {
            fprintf(stderr, "udplimit: -g %d segments of %d B do not fit one 64 KiB send\n", segments, o->size);
            return 2;
        }
        int size = o->size;
        if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &size, sizeof size) != 0) {
            printf("RESULT mode=send method=gso error=gso_unsupported\n");
            return fail("UDP_SEGMENT");
        }
    }
    size_t length = (size_t)o->size * (size_t)segments;
    char *payload = calloc(1, length);
    if (payload == NULL)
        return fail("calloc");
    struct iovec vector = { .iov_base = payload, .iov_len = length };
    struct mmsghdr messages[BATCH];
    for (int i = 0; i < BATCH; i++)
        messages[i].msg_hdr = (struct msghdr){ .msg_name = o->unconnected ? &to : NULL,
            .msg_namelen = o->unconnected ? sizeof to : 0, .msg_iov = &vector, .msg_iovlen = 1 };

    long long datagrams = 0, calls = 0, refused = 0, full = 0;
    double user0, system0, user1, system1;
    cpu_seconds(&user0, &system0);
    double start = now(), deadline = start + o->seconds;
    while (now() < deadline) {
        int sent;
        if (mmsg) {
            sent = sendmmsg(fd, messages, BATCH, 0);
        } else {
            ssize_t n = sendmsg(fd, &messages[0].msg_hdr, 0);
            sent = n < 0 ? -1 : segments;
        }
        calls++;
        if (sent < 0) {
            /* A port-unreachable from a receiver not yet bound comes back on a connected socket as ECONNREFUSED. */
            if (errno == ECONNREFUSED && o->keep_going) {
                refused++;
                continue;
            }
            if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR) {
                full++;
                continue;
            }
            return fail("send");
        }
        datagrams += sent;
    }
    double elapsed = now() - start;
    cpu_seconds(&user1, &system1);
    printf("send %s: %.3f s, %lld datagrams of %d B in %lld calls, %.0f datagrams/s\n", o->method, elapsed, datagrams, o->size, calls, datagrams / elapsed);
    printf("RESULT mode=send method=%s size=%d segs=%d dur=%.4f dgrams=%lld calls=%lld pps=%.0f refused=%lld nobufs=%lld cpu_user=%.4f cpu_sys=%.4f\n",
           o->method, o->size, segments, elapsed, datagrams, calls, datagrams / elapsed, refused, full, user1 - user0, system1 - system0);
    free(payload);
    return 0;
}

/* Requests carry their sequence number and send time in their first 16 bytes; the server echoes them. */
struct stamp {
    uint64_t sequence;
    double sent;
};

static int serve(const struct options *o)
{
    struct sockaddr_in at;
    if (endpoint(o, &at) != 0)
        return 2;
    if (o->response < (int)sizeof(struct stamp) || o->response > MAX_PAYLOAD) {
        fprintf(stderr, "udplimit: -r must be %zu to %d\n", sizeof(struct stamp), MAX_PAYLOAD);
        return 2;
    }
    int fd = open_socket();
    if (fd < 0)
        return fail("socket");
    if (bind(fd, (struct sockaddr *)&at, sizeof at) != 0)
        return fail("bind");
    if (pp_bound_waits(fd, o->method) != 0)
        return fail("setsockopt SO_RCVTIMEO");
    static char response[MAX_PAYLOAD];
    fprintf(stderr, "READY ppserver port %d\n", bound_port(fd));
    long long served = 0, errors = 0;
    double deadline = now() + o->seconds, last = 0;
    while (now() < deadline && (last == 0 || o->idle <= 0 || now() - last < o->idle)) {
        int taken = pp_take(fd, o->method, 0.1);
        for (int i = 0; i < taken; i++) {
            ssize_t n = pp_length[i];
            memcpy(response, pp_buffers[i], n < (ssize_t)sizeof(struct stamp) ? (size_t)n : sizeof(struct stamp));
            if (sendto(fd, response, (size_t)o->response, 0, (struct sockaddr *)&pp_from[i], sizeof pp_from[i]) < 0)
                errors++;
            else
                served++;
        }
        if (taken > 0)
            last = now();
    }
    printf("RESULT mode=ppserver served=%lld send_errors=%lld\n", served, errors);
    return 0;
}

static double percentile(const long long *buckets, long long count, double share)
{
    long long rank = (long long)(share * (double)count), seen = 0;
    for (int i = 0; i < LATENCY_BUCKETS; i++) {
        seen += buckets[i];
        if (seen > rank)
            return i;
    }
    return LATENCY_BUCKETS;
}

static int ask(const struct options *o)
{
    struct sockaddr_in to;
    if (endpoint(o, &to) != 0)
        return 2;
    if (o->request < (int)sizeof(struct stamp) || o->request > MAX_PAYLOAD || o->inflight < 1 || o->inflight > 4096) {
        fprintf(stderr, "udplimit: -q must be %zu to %d and -n 1 to 4096\n", sizeof(struct stamp), MAX_PAYLOAD);
        return 2;
    }
    int fd = open_socket();
    if (fd < 0)
        return fail("socket");
    if (connect(fd, (struct sockaddr *)&to, sizeof to) != 0)
        return fail("connect");
    if (pp_bound_waits(fd, o->method) != 0)
        return fail("setsockopt SO_RCVTIMEO");
    static char request[MAX_PAYLOAD];
    /* One-microsecond buckets up to 100 ms; later answers count in the last. */
    long long *buckets = calloc(LATENCY_BUCKETS + 1, sizeof *buckets);
    if (buckets == NULL)
        return fail("calloc");
    uint64_t next = 0;
    long long completed = 0, lost = 0;
    double start = now(), measuring = start + o->warmup, deadline = measuring + o->seconds, heard = start;
    for (int i = 0; i < o->inflight; i++) {
        struct stamp s = { next++, now() };
        memcpy(request, &s, sizeof s);
        send(fd, request, (size_t)o->request, 0);
    }
    while (now() < deadline) {
        int taken = pp_take(fd, o->method, 0.2);
        if (taken == 0) {
            /* Nothing for 200 ms: the requests in flight are taken as lost and sent again, so the window refills. */
            if (now() - heard >= 0.2) {
                lost += o->inflight;
                for (int i = 0; i < o->inflight; i++) {
                    struct stamp s = { next++, now() };
                    memcpy(request, &s, sizeof s);
                    send(fd, request, (size_t)o->request, 0);
                }
                heard = now();
            }
            continue;
        }
        for (int i = 0; i < taken; i++) {
            if (pp_length[i] < (ssize_t)sizeof(struct stamp))
                continue;
            double arrived = now();
            heard = arrived;
            struct stamp s;
            memcpy(&s, pp_buffers[i], sizeof s);
            if (arrived >= measuring) {
                double micros = (arrived - s.sent) * 1e6;
                buckets[micros < 0 ? 0 : micros >= LATENCY_BUCKETS ? LATENCY_BUCKETS : (int)micros]++;
                completed++;
            }
            s = (struct stamp){ next++, now() };
            memcpy(request, &s, sizeof s);
            send(fd, request, (size_t)o->request, 0);
        }
    }
    double elapsed = now() - measuring;
    if (completed == 0) {
        printf("RESULT mode=ppclient error=no_response\n");
        fprintf(stderr, "udplimit: no response within the window\n");
        return 1;
    }
    double p50 = percentile(buckets, completed, 0.50), p90 = percentile(buckets, completed, 0.90), p99 = percentile(buckets, completed, 0.99);
    printf("ppclient %d B, %d in flight: %.3f s, %lld responses, %.0f requests/s; p50 %.0f us, p99 %.0f us\n",
           o->request, o->inflight, elapsed, completed, completed / elapsed, p50, p99);
    printf("RESULT mode=ppclient req=%d n=%d dur=%.4f completed=%lld rps=%.0f p50=%.1f p90=%.1f p99=%.1f lost=%lld\n",
           o->request, o->inflight, elapsed, completed, completed / elapsed, p50, p90, p99, lost);
    free(buckets);
    return 0;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: udplimit recv     [-a ADDR] -p PORT [-m recvfrom|recvmmsg|gro] [-t SECS] [-W FIRSTWAIT]\n"
            "       udplimit send     [-a ADDR] -p PORT [-m sendto|sendmmsg|gso] [-s SIZE] [-t SECS] [-g SEGS] [-U] [-k]\n"
            "       udplimit ppserver [-a ADDR] -p PORT [-m poll|recvfrom|recvmsg|recvmmsg] [-r RESPBYTES] [-t SECS] [-I IDLESECS]\n"
            "       udplimit ppclient [-a ADDR] -p PORT [-m poll|recvfrom|recvmsg|recvmmsg] [-n INFLIGHT] [-q BYTES] [-t SECS] [-w WARMUP]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    struct options o = { .address = "127.0.0.1", .method = "recvmmsg", .size = 64, .response = 512, .request = 512,
                         .inflight = 1, .seconds = 2, .first_wait = 10 };
    const char *mode = argv[1];
    int pingpong = strcmp(mode, "ppserver") == 0 || strcmp(mode, "ppclient") == 0;
    if (strcmp(mode, "send") == 0)
        o.method = "sendmmsg";
    if (pingpong)
        o.method = "poll";
    optind = 2;
    for (int c; (c = getopt(argc, argv, "a:m:p:s:t:g:W:r:I:n:q:w:Uk")) != -1;) {
        switch (c) {
        case 'a': o.address = optarg; break;
        case 'm': o.method = optarg; break;
        case 'p': o.port = atoi(optarg); break;
        case 's': o.size = atoi(optarg); break;
        case 't': o.seconds = atof(optarg); break;
        case 'g': o.segments = atoi(optarg); break;
        case 'W': o.first_wait = atof(optarg); break;
        case 'r': o.response = atoi(optarg); break;
        case 'I': o.idle = atof(optarg); break;
        case 'n': o.inflight = atoi(optarg); break;
        case 'q': o.request = atoi(optarg); break;
        case 'w': o.warmup = atof(optarg); break;
        case 'U': o.unconnected = 1; break;
        case 'k': o.keep_going = 1; break;
        default: return usage();
        }
    }
    /* Port 0 binds any free port (recv and ppserver print it); a sender needs the real one. */
    int binds = strcmp(mode, "recv") == 0 || strcmp(mode, "ppserver") == 0;
    if (o.port < (binds ? 0 : 1) || o.port > 65535 || !(o.seconds > 0 && o.seconds <= 600) || o.warmup < 0 || o.warmup > 60) {
        fprintf(stderr, "udplimit: -p must be 1 to 65535, -t above 0 and at most 600, -w 0 to 60\n");
        return 2;
    }
    if (pingpong && !pp_method_known(o.method)) {
        fprintf(stderr, "udplimit: %s -m %s: expected poll, recvfrom, recvmsg or recvmmsg\n", mode, o.method);
        return 2;
    }
    if (strcmp(mode, "recv") == 0)
        return receive(&o);
    if (strcmp(mode, "send") == 0)
        return send_all(&o);
    if (strcmp(mode, "ppserver") == 0)
        return serve(&o);
    if (strcmp(mode, "ppclient") == 0)
        return ask(&o);
    return usage();
}
