using System.Buffers;
using System.Net.Sockets;

namespace Salvo.Streams;

public sealed partial class StreamConnection
{
    private ScratchBuffer? _scratch;

    private async Task ReceiveLoopAsync()
    {
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
                if (!IsReadable())
                {
                    continue;
                }

                var received = await _socket.ReceiveAsync(writer.GetMemory(1), SocketFlags.None).ConfigureAwait(false);
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
                writer.Advance(received);
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
                if (last.Status == FrameDecodeStatus.Malformed)
                {
                    reader.AdvanceTo(buffer.End);
                    var frameReason = last.Error == FrameError.TooLarge ? StreamCloseReason.OversizeFrame : StreamCloseReason.MalformedFrame;
                    _ = Close(frameReason, last.Reason, graceful: true);
                    continue;
                }

                // Everything up to the first incomplete frame is consumed; the rest was examined and waits for more.
                reader.AdvanceTo(buffer.Slice(consumed).Start, buffer.End);
                held = buffer.Length - consumed;
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
    /// Whether a receive would complete now. A zero-byte read can wake for readiness the previous receive already
    /// drained (the epoll edge comes after the bytes were read); measured: 13 of 20 connections that had just
    /// received 50 KB then parked a receive holding a 4 KiB block. Data, end of stream and errors count as readable.
    /// </summary>
    private bool IsReadable() => _socket.Available > 0 || _socket.Poll(0, SelectMode.SelectRead);

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
            var decoded = framer.TryDecode(buffer.Slice(consumed), scratch);
            if (decoded.Status != FrameDecodeStatus.Complete)
            {
                return (consumed, decoded);
            }

            _host.Metrics.MessageReceived();
            try
            {
                await _host.Handler.OnMessageAsync(this, decoded.Message).ConfigureAwait(false);
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
            if (!IsOpen)
            {
                return (consumed, decoded);
            }
        }
    }

    /// <summary>Carries a handler's exception out of the receive loop, apart from the loop's own I/O errors.</summary>
    private sealed class HandlerException(Exception inner) : Exception(inner.Message, inner);
}
