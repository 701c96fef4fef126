using System.CommandLine;
using Salvo.Perf.Cli;
using Salvo.Perf.Measurement;
using Salvo.Perf.Rr;
using Salvo.Perf.Tunnel;
using Salvo.Perf.Platform;

namespace Salvo.Perf.Lab;

/// <summary>
/// <c>salvo lab</c>: two network namespaces joined by a veth pair; in B the receiver or responder, in A the sender or
/// client, each pinned to its own CPU; Salvo on the kernel's UDP path, Salvo on AF_XDP and C's udplimit measured in
/// turn, round by round: datagrams/s with the receiver's CPU per datagram, and request/response rate and latency.
/// </summary>
internal static class LabCommand
{
    /// <summary>The largest payload the lab sends: the veth's 1,500-byte MTU less 20 (IPv4) and 8 (UDP); AF_XDP does not fragment.</summary>
    public const int MaxPayload = VethLab.Mtu - 28;

    /// <summary>The most requests in flight a point may keep.</summary>
    public const int MaxParallel = 256;

    /// <summary>The longest measured window of one point: every process the lab starts ends within it and a margin.</summary>
    public const double MaxSeconds = 60;

    public static Command Create(CliConsole console)
    {
        var options = new LabOptionSet();
        var command = new Command("lab",
            "Two network namespaces joined by a veth pair (198.18.0.1 in A, 198.18.0.2 in B, MTU 1500): the receiver or " +
            "responder in B on one CPU, the sender or client in A on another. Measures in turn, round by round, Salvo on the " +
            "kernel's UDP path (recvmmsg/sendmmsg), Salvo on AF_XDP and C's udplimit: datagrams/s and the receiver's CPU per " +
            "datagram (C's sendmmsg sender feeds every receiver), then request/response rate and round-trip p50/p99. Needs " +
            "Linux, root, ip and taskset; C's udplimit, shipped as source, is built with the C compiler found here (without one the C rows are " +
            "skipped). The namespaces are removed at the end, on Ctrl+C and " +
            "SIGTERM too, and those of a killed run at the next start.")
        {
            LabReceiveCommand.Create(console),
            LabSendCommand.Create(console),
        };
        options.AddTo(command);
        command.SetAction((parse, cancellationToken) =>
        {
            var missing = LabRequirements.Missing(HostOs.IsLinux, HostOs.IsRoot, BenchTools.Find);
            if (missing.Count > 0)
            {
                throw new CliException("lab: cannot run here:\n  " + string.Join("\n  ", missing), CliException.FailureExitCode);
            }

            var settings = options.Read(parse, CpuAffinity.AllowedCpus(), BenchTools.Find);
            var report = new LabRunner(settings, console, cancellationToken).Run();
            LabPrinter.Print(console, report);
            return Task.FromResult(0);
        });
        return command;
    }

    /// <summary>The lab's options and how they are read.</summary>
    internal sealed class LabOptionSet
    {
        public Option<int[]> Sizes { get; } = List("--sizes", "BYTES[,BYTES...]", [64, 1_380],
            $"Payload sizes of the datagrams/s points, comma-separated, each 16 to {MaxPayload} (the veth MTU less the IPv4 and UDP headers).",
            text =>
            {
                var sizes = ValueParsers.ParseSizes(text, "--sizes", 16, out var error);
                var big = error is null ? sizes.FirstOrDefault(s => s > MaxPayload) : 0;
                return big > 0 ? ([], $"--sizes: {big} bytes is over {MaxPayload}, the largest payload a 1,500-byte veth carries unfragmented.") : (sizes, error);
            });

        public Option<int[]> ParallelLevels { get; } = List("--parallel-levels", "N[,N...]", [1, 4, 16],
            $"Requests in flight of the request/response points, comma-separated, each 1 to {MaxParallel}.",
            text => (ValueParsers.ParseCounts(text, "--parallel-levels", MaxParallel, out var error), error));

        public Option<int> Request { get; } = CommonOptions.Int("--request", null, "BYTES", 512, RrWire.MinRequest, MaxPayload, "Request and response size in bytes.");

        public Option<double> Time { get; } = CommonOptions.Double("--time", "-t", "SECONDS", 2, 0.1, MaxSeconds, "seconds", "Measured seconds per point.");

        public Option<double> Warmup { get; } = CommonOptions.Double("--warmup", null, "SECONDS", 0.5, 0, 10, "seconds", "Unmeasured seconds at the start of each Salvo receiver's window and of each request/response point (C's receiver has nothing to warm and counts from its first datagram).");

        public Option<int> Rounds { get; } = CommonOptions.Int("--rounds", null, "COUNT", 3, 1, 9, "Interleaved rounds over every point; each figure is the median over them.");

        public Option<string[]> Paths { get; } = new("--paths")
        {
            Description = $"What to measure, comma-separated: kernel (Salvo, recvmmsg/sendmmsg), afxdp (Salvo, AF_XDP waiting in poll(2)), afxdp-busy (Salvo, AF_XDP busy-polling), c (udplimit). Defaults to {string.Join(',', LabPaths.All)}.",
            HelpName = "PATH[,PATH...]",
            Arity = ArgumentArity.ExactlyOne,
            DefaultValueFactory = _ => [.. LabPaths.All],
            CustomParser = result =>
            {
                var paths = ValueParsers.SplitList(string.Join(',', result.Tokens.Select(t => t.Value)), "--paths", out var error);
                var unknown = paths.FirstOrDefault(p => !LabPaths.All.Contains(p));
                if (error is null && unknown is not null)
                {
                    error = $"--paths: '{unknown}' is not one of {string.Join(", ", LabPaths.All)}.";
                }

                if (error is null && paths.Length == 0)
                {
                    error = $"--paths: expected one or more of {string.Join(", ", LabPaths.All)}.";
                }

                if (error is not null)
                {
                    result.AddError(error);
                }

                return [.. paths.Distinct()];
            },
        };

        public Option<bool> CReference { get; } = new("--c-reference")
        {
            Description = "Measure C's reference beside Salvo: udplimit.c, shipped with the tool and built on first use with cc, gcc or clang into " +
                "~/.cache/salvo/c-reference; its sendmmsg sender then feeds every datagrams/s point. Without a C compiler the C rows say they were " +
                "skipped and Salvo's own sender feeds the points. Defaults to true.",
            HelpName = "true|false",
            DefaultValueFactory = _ => true,
        };

        public Option<int> SenderCpu { get; } = CommonOptions.Int("--sender-cpu", null, "CPU", 0, 0, 1023, "CPU of the sender and the client in namespace A.");

        public Option<int> ReceiverCpu { get; } = CommonOptions.Int("--receiver-cpu", null, "CPU", 1, 0, 1023, "CPU of the receiver and the responder in namespace B.");

        public void AddTo(Command command)
        {
            foreach (var option in new Option[] { Sizes, ParallelLevels, Request, Time, Warmup, Rounds, Paths, CReference, SenderCpu, ReceiverCpu })
            {
                command.Options.Add(option);
            }
        }

        /// <summary>The settings; a CPU this process may not use fails naming the option. <paramref name="find"/> finds a C compiler.</summary>
        public LabSettings Read(ParseResult parse, IReadOnlyList<int> allowedCpus, Func<string, string?> find)
        {
            var compiler = parse.GetValue(CReference) ? Lab.CReference.FindCompiler(find) : null;
            var skipped = compiler is not null ? null
                : parse.GetValue(CReference) ? $"skipped: no C compiler found ({string.Join(", ", Lab.CReference.Compilers)})"
                : "skipped: --c-reference false";
            var sender = parse.GetValue(SenderCpu);
            var receiver = parse.GetValue(ReceiverCpu);
            foreach (var (cpu, option) in new[] { (sender, "--sender-cpu"), (receiver, "--receiver-cpu") })
            {
                if (!allowedCpus.Contains(cpu))
                {
                    throw new CliException($"{option}: CPU {cpu} is not one this process may run on ({string.Join(',', allowedCpus)}).");
                }
            }

            return new LabSettings(parse.GetValue(Sizes)!, parse.GetValue(ParallelLevels)!, parse.GetValue(Request), parse.GetValue(Time), parse.GetValue(Warmup),
                parse.GetValue(Rounds), parse.GetValue(Paths)!, compiler, skipped, sender, receiver);
        }

        private static Option<int[]> List(string name, string helpName, int[] defaults, string description, Func<string, (int[] Values, string? Error)> parse) => new(name)
        {
            Description = $"{description} Defaults to {string.Join(',', defaults)}.",
            HelpName = helpName,
            Arity = ArgumentArity.ExactlyOne,
            DefaultValueFactory = _ => defaults,
            CustomParser = result =>
            {
                var (values, error) = parse(string.Join(',', result.Tokens.Select(t => t.Value)));
                if (error is not null)
                {
                    result.AddError(error);
                }

                return values;
            },
        };
    }
}
