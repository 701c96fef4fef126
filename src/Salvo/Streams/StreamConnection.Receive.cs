using System.Buffers;
using System.Net.Sockets;

namespace Salvo.Streams;

public sealed partial class StreamConnection
{
    // One pool block: a read takes at most what one block holds, as reading into the pipe's memory did.
    private const int ReceiveLandingBytes = Buffers.PinnedBufferPool.DefaultBlockSize;

    // The most one wake reads before its frames are handled: when the landing fills, data is streaming, and further
    // reads go straight into the pipe's blocks. 64 KiB is about 45 messages of a 1,420-byte tunnel MTU, one TUN
    // super-packet's worth; 4 KiB a wake (under 3 such messages) cost a zero-byte read, a read and a handler round
    // per 4 KiB, which held the tunnel's TCP fallback near 0.5 Gbit/s on one stream.
    private const int ReceiveBurstBytes = 64 * 1024;

    private ScratchBuffer? _scratch;

    // What the framer learned about the incomplete frame at the head of the input, so each read is scanned once.
    private FrameScanState _frameScan;

    private async Task ReceiveLoopAsync()
    {
        // Leave at once, so that Start stores this loop's task before any of it runs. With bytes already in the
        // socket, the first handler call would otherwise run inside Start; a close begun meanwhile would see the
        // placeholder task, take the loop for finished, and never count a stuck handler out.
        await Task.CompletedTask.ConfigureAwait(ConfigureAwaitOptions.ForceYielding);
        var writer = _input.Writer;
        var reader = _input.Reader;
        var reason = StreamCloseReason.RemoteClosed;
        string? detail = null;
        var graceful = true;
        long held = 0; // bytes of an incomplete frame after the last read
        try
        {
            while (true)
            {
                // Zero-byte read: wait until data is ready without holding a buffer, so an idle connection rents
                // no block (the pipe gives its last block back when the reader consumes everything).
                await _socket.ReceiveAsync(Memory<byte>.Empty, SocketFlags.None).ConfigureAwait(false);
                var received = ReceiveReady(writer);
                if (received < 0)
                {
                    continue;
                }

                if (received == 0)
                {
                    // Counted, not re-read: TryRead here found no data once the reader had examined all of it, so a
                    // cut-off frame used to close as RemoteClosed and was dropped without a word.
                    if (held > 0 && IsOpen)
                    {
                        (reason, detail) = (StreamCloseReason.MalformedFrame, $"The stream ended inside a frame ({held} bytes of it arrived).");
                    }

                    break;
                }

                Touch();
                await writer.FlushAsync().ConfigureAwait(false);
                reader.TryRead(out var result);
                var buffer = result.Buffer;
                if (!IsOpen)
                {
                    // Closing: what still arrives is read and dropped until the peer ends the stream.
                    reader.AdvanceTo(buffer.End);
                    continue;
                }

                var (consumed, last) = await DispatchAsync(buffer).ConfigureAwait(false);
                ReadHandled();
                await FlushDeferredAsync().ConfigureAwait(false);
                if (last.Status == FrameDecodeStatus.Malformed)
                {
                    reader.AdvanceTo(buffer.End);
                    var frameReason = last.Error == FrameError.TooLarge ? StreamCloseReason.OversizeFrame : StreamCloseReason.MalformedFrame;
                    _ = Close(frameReason, last.Reason, graceful: true);
                    continue;
                }

                // Everything up to the first incomplete frame is consumed; the rest was examined and waits for more.
                // Measured before AdvanceTo, which returns consumed blocks to the pool (see the send loop).
                held = buffer.Length - consumed;
                reader.AdvanceTo(buffer.Slice(consumed).Start, buffer.End);
            }
        }
        catch (HandlerException e)
        {
            StreamLog.HandlerFailed(_host.Logger, Id, RemoteEndPoint, e.InnerException!);
            (reason, detail, graceful) = (StreamCloseReason.HandlerError, e.InnerException!.Message, false);
        }
        catch (InsufficientMemoryException e)
        {
            (reason, detail, graceful) = (StreamCloseReason.BufferPoolExhausted, e.Message, false);
        }
        catch (Exception e)
        {
            // Reset, aborted or disposed by a close: this connection ends, the rest go on.
            (reason, detail, graceful) = (StreamCloseReason.SocketError, e.Message, false);
        }
        finally
        {
            _scratch?.Reset();
            await writer.CompleteAsync().ConfigureAwait(false);
            await reader.CompleteAsync().ConfigureAwait(false);
        }

        _ = Close(reason, detail, graceful);
        ReceivePartDone();
    }

    /// <summary>
    /// Takes what the socket holds now, without waiting, into the input pipe: the byte count, 0 at end of stream, or
    /// -1 when nothing was there. A zero-byte read can wake for readiness the previous receive already drained (the
    /// epoll edge comes after the bytes were read; measured: 13 of 20 connections that had just received 50 KB then
    /// parked a receive holding a 4 KiB block), so the bytes land on the stack first and a block is rented only for
    /// bytes that arrived. One non-blocking recv, where asking FIONREAD first made it two system calls per read.
    /// </summary>
    /// <exception cref="SocketException">The connection failed (reset, for instance).</exception>
    [System.Runtime.CompilerServices.SkipLocalsInit] // the landing is written by recv before it is read; zeroing 4 KiB per read is waste
    private int ReceiveReady(System.IO.Pipelines.PipeWriter writer)
    {
        Span<byte> landing = stackalloc byte[ReceiveLandingBytes];
        var received = _socket.Receive(landing, SocketFlags.None, out var error);
        if (error == SocketError.WouldBlock)
        {
            return -1;
        }

        if (error != SocketError.Success)
        {
            throw new SocketException((int)error);
        }

        writer.Write(landing[..received]);
        if (received < landing.Length)
        {
            return received;
        }

        // The landing filled: more is likely waiting. Read on into the pipe's own blocks (no copy), until the socket
        // is drained or a burst's worth is in.
        var total = received;
        while (total < ReceiveBurstBytes)
        {
            var block = writer.GetSpan(ReceiveLandingBytes);
            var more = _socket.Receive(block, SocketFlags.None, out error);
            if (error == SocketError.WouldBlock || (error == SocketError.Success && more == 0))
            {
                // End of stream after data: the next zero-byte read wakes at once and the read after it returns 0.
                break;
            }

            if (error != SocketError.Success)
            {
                throw new SocketException((int)error);
            }

            writer.Advance(more);
            total += more;
            if (more < block.Length)
            {
                break;
            }
        }

        return total;
    }

    /// <summary>Tells the handler that the messages of this read were handled, as <see cref="Handle"/> runs it.</summary>
    private void ReadHandled()
    {
        var outer = t_dispatching;
        t_dispatching = this;
        try
        {
            _host.Handler.OnReadHandled(this);
        }
        catch (Exception e)
        {
            throw new HandlerException(e);
        }
        finally
        {
            t_dispatching = outer;
        }
    }

    /// <summary>
    /// Hands every whole frame at the start of <paramref name="buffer"/> to the handler, until a frame is incomplete
    /// or malformed or the connection starts closing. Returns the bytes of the frames handled and the last result.
    /// </summary>
    private async ValueTask<(long Consumed, FrameDecodeResult Last)> DispatchAsync(ReadOnlySequence<byte> buffer)
    {
        var framer = _host.Framer;
        var scratch = _scratch ??= new ScratchBuffer();
        long consumed = 0;
        while (true)
        {
            var decoded = framer.TryDecode(buffer.Slice(consumed), scratch, ref _frameScan);
            if (decoded.Status != FrameDecodeStatus.Complete)
            {
                return (consumed, decoded);
            }

            _host.Metrics.MessageReceived();
            try
            {
                var handled = Handle(decoded.Message);
                if (!handled.IsCompletedSuccessfully)
                {
                    // Replies queued so far must not wait for however long the handler takes from here.
                    await FlushDeferredAsync().ConfigureAwait(false);
                    await handled.ConfigureAwait(false);
                }
            }
            catch (Exception e)
            {
                throw new HandlerException(e);
            }
            finally
            {
                scratch.Reset();
            }

            consumed += decoded.Consumed;
            _frameScan = default; // the next decode starts at a new frame, whatever the framer left
            if (!IsOpen)
            {
                return (consumed, decoded);
            }
        }
    }

    /// <summary>Runs the handler with this connection marked as dispatching on this thread, for as long as it runs synchronously.</summary>
    private ValueTask Handle(ReadOnlySequence<byte> message)
    {
        var outer = t_dispatching;
        t_dispatching = this;
        try
        {
            return _host.Handler.OnMessageAsync(this, message);
        }
        finally
        {
            t_dispatching = outer;
        }
    }

    /// <summary>Carries a handler's exception out of the receive loop, apart from the loop's own I/O errors.</summary>
    private sealed class HandlerException(Exception inner) : Exception(inner.Message, inner);
}
