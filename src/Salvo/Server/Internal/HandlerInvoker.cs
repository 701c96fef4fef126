namespace Salvo.Server;

/// <summary>Calls whichever handler form the server was given, from a dedicated thread or an async loop.</summary>
internal sealed class HandlerInvoker
{
    private readonly IDatagramHandler? _handler;
    private readonly IAsyncDatagramHandler? _asyncHandler;

    public HandlerInvoker(IDatagramHandler handler)
    {
        _handler = handler;
        _asyncHandler = handler as IAsyncDatagramHandler;
    }

    public HandlerInvoker(IAsyncDatagramHandler handler)
    {
        _asyncHandler = handler;
        _handler = handler as IDatagramHandler;
    }

    /// <summary>For a dedicated thread: the synchronous form if there is one, else the async one waited on.</summary>
    public void Invoke(in DatagramContext context)
    {
        if (_handler is not null)
        {
            _handler.Handle(in context);
            return;
        }

        var pending = _asyncHandler!.HandleAsync(context);
        if (pending.IsCompletedSuccessfully)
        {
            return;
        }

        // The thread is the worker's own; blocking it is the dedicated-thread model's contract.
        pending.AsTask().GetAwaiter().GetResult();
    }

    /// <summary>For an async loop: the async form if there is one, else the synchronous one inline.</summary>
    public ValueTask InvokeAsync(DatagramContext context)
    {
        if (_asyncHandler is not null)
        {
            return _asyncHandler.HandleAsync(context);
        }

        _handler!.Handle(in context);
        return default;
    }
}
