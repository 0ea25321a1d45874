package dev.dprof.report.html;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.dprof.consolidator.synthetic.Consolidated;
import dev.dprof.synthetic.SyntheticRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report of a synthetic run (several simulated machines, messages, barriers, a
 * straggler) rendered by headless Chromium: every section is there, every chart drew, no script
 * failed — read from the page's own status element after its scripts ran. When it fails, its
 * temporary directory, with the page and a screenshot of it, is kept for a human to look at.
 */
class HtmlReportTest {
    private static final Pattern STATUS = Pattern.compile(
            "<div id=\"dprof-status\" data-charts=\"(\\d+)\" data-errors=\"(\\d+)\" data-sections=\"([^\"]*)\"([^>]*)>");

    @Test
    void chromiumDrawsEverySectionWithoutAScriptError(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
        SyntheticRun.Result run = SyntheticRun.generate(SyntheticRun.Spec.of(3, 2, 8, 6_000, 7).straggler(1, 2.0), dir);
        Consolidated c = Consolidated.of(run, dir.resolve("profile"), "bounded:2.2");
        ObjectNode data = ReportData.build(c.profile(), new ReportData.Options(SyntheticRun.BODY, SyntheticRun.BARRIER,
                SyntheticRun.BODY, SyntheticRun.BARRIER, 3, 50, 100, true), dir.resolve("scratch"));
        Path page = dir.resolve("report.html");
        long bytes = HtmlReport.write(data, page);
        assertTrue(bytes > 200_000, "Chart.js is inlined: " + bytes);
        String html = Files.readString(page);
        assertTrue(!html.contains("src=\"http") && !html.contains("href=\"http"), "nothing is loaded from the network");

        HeadlessChromium chromium = HeadlessChromium.locate(dir);
        String dom = chromium.dumpDom(page);
        Matcher m = STATUS.matcher(dom);
        assertTrue(m.find(), () -> "no status element in the rendered page:\n" + dom.substring(0, Math.min(2000, dom.length())));
        assertEquals("0", m.group(2), () -> "script errors: " + m.group(4));
        assertEquals(List.of("summary", "statistics", "straggler", "whatif", "criticalPath", "sync", "timeline"),
                List.of(m.group(3).split(",")));
        // straggler, 3 what-if curves, critical path shares, the straggler by method, the timeline
        assertTrue(Integer.parseInt(m.group(1)) >= 7, "charts drawn: " + m.group(1));
        Path screenshot = dir.resolve("report-screenshot.png");
        chromium.screenshot(page, screenshot, 1280, 4000);
        assertTrue(Files.size(screenshot) > 10_000);
    }

    @Test
    void scriptSafeTextCannotCloseItsScriptElement() {
        assertEquals("a <\\/script> b <\\/SCRIPT", HtmlReport.scriptSafe("a </script> b </SCRIPT"));
        assertEquals("x </div>", HtmlReport.scriptSafe("x </div>"));
    }
}
