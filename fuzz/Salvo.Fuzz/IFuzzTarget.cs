namespace Salvo.Fuzz;

/// <summary>
/// One parser of outside bytes under afl-fuzz. The contract: any input either parses or is refused the way the parser
/// documents (its status value or its own exception type, caught inside <see cref="Run"/>); any other exception
/// escapes and is a crash.
/// </summary>
public interface IFuzzTarget
{
    /// <summary>The name on the command line, and the folder of its seeds under fuzz/corpus/.</summary>
    string Name { get; }

    /// <summary>What the target drives, for the usage text.</summary>
    string Description { get; }

    /// <summary>Feeds one input to the code under test.</summary>
    void Run(ReadOnlySpan<byte> input);

    /// <summary>Valid messages made by the code's own encoders, plus a few edge cases: the seed corpus.</summary>
    IEnumerable<(string Name, byte[] Bytes)> Seeds();
}
