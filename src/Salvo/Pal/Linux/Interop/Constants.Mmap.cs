namespace Salvo.Interop.Linux;

// mmap(2)'s protections and flags (include/uapi/asm-generic/mman-common.h and mman.h), for io_uring's rings and
// buffer rings and AF_XDP's rings and UMEM.
internal static partial class Constants
{
    public const int PROT_READ = 0x1;
    public const int PROT_WRITE = 0x2;
    public const int MAP_SHARED = 0x01;
    public const int MAP_PRIVATE = 0x02;
    public const int MAP_ANONYMOUS = 0x20;
    public const int MAP_POPULATE = 0x8000;
}
