namespace Salvo.Tests;

/// <summary>A measurement, not a test: runs only when SALVO_MEASURE=1 (kept out of the default run).</summary>
public sealed class MeasureFactAttribute : FactAttribute
{
    public MeasureFactAttribute()
    {
        if (Environment.GetEnvironmentVariable("SALVO_MEASURE") != "1")
        {
            Skip = "A measurement; set SALVO_MEASURE=1 to run it.";
        }
    }
}
