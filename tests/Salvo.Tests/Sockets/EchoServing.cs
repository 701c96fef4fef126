namespace Salvo.Tests.Sockets;

/// <summary>The server end of a one-in-flight exchange: blocking receives, each batch answered in one send.</summary>
internal static class EchoServing
{
    /// <summary>
    /// Answers <paramref name="requests"/> requests on the calling thread; calls <paramref name="atMark"/> once, when
    /// <paramref name="mark"/> of them have been answered and before the next receive.
    /// </summary>
    public static void Serve(DatagramSocket server, int requests, int mark, Action atMark)
    {
        var received = new ReceiveBatch(capacity: 64, bufferSize: 2048);
        var replies = new SendBatch(capacity: 64, maxDatagramSize: 64);
        for (var served = 0; served < requests;)
        {
            if (served == mark)
            {
                atMark();
            }

            if (server.Receive(received, TimeSpan.FromSeconds(10)) == 0)
            {
                throw new TimeoutException($"the server waited 10 s for request {served}");
            }

            foreach (var request in received)
            {
                replies.Add(request.Payload, request.Source);
                served++;
            }

            server.Send(replies);
            replies.Clear();
        }
    }
}
