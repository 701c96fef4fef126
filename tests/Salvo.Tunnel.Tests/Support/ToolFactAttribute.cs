namespace Salvo.Tunnel.Tests.Support;

/// <summary>A fact that needs a system tool; skipped, naming the tool, when it is not installed.</summary>
public sealed class ToolFactAttribute : FactAttribute
{
    public ToolFactAttribute(string tool)
    {
        if (ExternalTool.Find(tool) is null)
        {
            Skip = $"{tool} is not installed";
        }
    }
}
