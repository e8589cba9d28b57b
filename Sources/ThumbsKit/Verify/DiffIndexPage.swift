import Foundation

/// The `index.html` of `verify --diff`: one card per changed output with a
/// slider between baseline and new (both cut from the side-by-side PNG by
/// CSS), and the PNG itself with its heat map. Inline style and script, no
/// network, like report.html.
enum DiffIndexPage {
    /// Pixels between the panels of the side-by-side PNG (image_compare.c).
    static let gap = 4

    static func html(_ entries: [DiffWriter.Entry], baseline: String, limits: DifferenceLimits) -> String {
        var out = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>thumbs verify · \(entries.count) changed output\(entries.count == 1 ? "" : "s")</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:24px;background:#f6f6f4;color:#222}
            h1{font-size:20px;margin:0 0 4px}p.sub{margin:0 0 20px;color:#555}
            .card{background:#fff;border:1px solid #ddd;border-radius:8px;padding:16px;margin:0 0 20px}
            .card h2{font-size:15px;margin:0 0 4px;word-break:break-all}.card .m{color:#a11;margin:0 0 12px}
            .row{display:flex;gap:24px;flex-wrap:wrap;align-items:flex-start}
            .view{position:relative;background-repeat:no-repeat;image-rendering:pixelated;border:1px solid #ccc}
            .view .new{position:absolute;left:0;top:0;height:100%;background-repeat:no-repeat;image-rendering:pixelated;
            border-right:2px solid #e33}
            .view span{position:absolute;top:4px;font-size:11px;background:rgba(0,0,0,.6);color:#fff;padding:1px 5px;border-radius:3px}
            input[type=range]{display:block;margin:8px 0 0}
            figure{margin:0}figcaption{font-size:12px;color:#555;margin-top:4px}
            .strip{image-rendering:pixelated;border:1px solid #ccc}
            </style></head><body>
            <h1>\(entries.count) output\(entries.count == 1 ? "" : "s") changed</h1>
            <p class="sub">against the baseline \(ReportFormat.escape(baseline)); limits: SSIM \(String(format: "%.3f", limits.minimumSSIM)), \
            mean colour ΔE \(String(format: "%.1f", limits.maximumMeanDeltaE)) (--max-difference \(limits.maxDifference))</p>

            """
        for (index, entry) in entries.enumerated() {
            let scale = min(3, max(1, 320 / max(entry.width, entry.height)))
            let w = entry.width * scale, h = entry.height * scale
            let stripWidth = (3 * entry.width + 2 * gap) * scale
            let file = ReportFormat.escape(entry.file)
            let background = "background-image:url('\(file)');background-size:\(stripWidth)px \(h)px"
            out += """
                <div class="card"><h2>\(ReportFormat.escape(entry.id)) · \(ReportFormat.escape(entry.size)) · \(ReportFormat.escape(entry.path))</h2>
                <p class="m">\(ReportFormat.escape(limits.describe(entry.difference)))</p>
                <div class="row"><figure>
                <div class="view" style="width:\(w)px;height:\(h)px;\(background);background-position:0 0">
                <div class="new" id="n\(index)" style="width:50%;\(background);background-position:-\((entry.width + gap) * scale)px 0"></div>
                <span style="left:4px">new</span><span style="right:4px">baseline</span></div>
                <input type="range" min="0" max="100" value="50" aria-label="new or baseline" style="width:\(w)px" \
                oninput="document.getElementById('n\(index)').style.width=this.value+'%'">
                <figcaption>slide: new on the left, baseline on the right</figcaption></figure>
                <figure><img class="strip" src="\(file)" width="\(stripWidth)" height="\(h)" alt="baseline, new and difference">
                <figcaption>baseline · new · difference (ΔE2000: grey none, red 1–10, yellow 20 and more)</figcaption></figure></div></div>

                """
        }
        if entries.isEmpty { out += "<p>No output differs from the baseline by eye.</p>\n" }
        out += "</body></html>\n"
        return out
    }
}
