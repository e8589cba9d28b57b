/// The report's stylesheet, inlined into the page: system fonts, a calm light
/// palette with a dark one through `prefers-color-scheme`, and
/// `content-visibility: auto` on every chunk of the grid and of the failures
/// table, so a browser lays out only the chunks on screen.
enum ReportStyle {
    /// Items per chunk of the thumbnail grid and rows per chunk of the
    /// failures table.
    static let chunkSize = 500

    /// Thumbnails shown as `<img loading=lazy>`; later ones are the CSS
    /// background of their tile. Chromium keeps every lazy image under
    /// observation: measured in headless Chromium 156 with lazy loading on,
    /// 20,000 of them cost about a second, 100,000 about 40 s before the page
    /// settles. A background image costs nothing until its tile is drawn,
    /// and tiles in chunks off screen are not drawn (`content-visibility`).
    static let imageElementLimit = 10_000
    /// Tiles in the grid at most: the page stays one a browser opens in
    /// seconds (about 18 MB at 100,000 tiles); past it a note says how many
    /// are not shown, and the manifest lists them all.
    static let gridLimit = 100_000
    /// Look-alike groups shown in the report; the manifest has them all.
    static let lookalikeGroupLimit = 200
    /// Members shown per group: a folder of near-identical frames can make
    /// one group of thousands.
    static let lookalikeMemberLimit = 50

    /// The estimated height of a full grid chunk before it is first laid out
    /// (`auto` then remembers the real one).
    static func gridChunkHeight(items: Int) -> Int {
        let columns = 6, rowHeight = 236
        return (items + columns - 1) / columns * rowHeight
    }

    static let css = """
    :root{--bg:#f4f5f7;--card:#fff;--fg:#1b2130;--muted:#667085;--faint:#98a2b3;--line:#e3e6eb;--grid:#eef0f3;\
    --accent:#3a66d6;--accent-soft:#e4ebfb;--ok:#2f8a5b;--unchanged:#5b8fd1;--dup:#9a7bd0;--bad:#d0453b;--bad-soft:#fbe9e7;\
    --warn:#c07a12;--chip:#eef1f5;--shadow:0 1px 2px rgba(16,24,40,.05);color-scheme:light dark}
    @media (prefers-color-scheme:dark){:root{--bg:#0f1217;--card:#171b22;--fg:#e4e7ec;--muted:#98a2b3;--faint:#667085;\
    --line:#2a303b;--grid:#222833;--accent:#7d9ffc;--accent-soft:#1f2a44;--ok:#4cbf88;--unchanged:#6fa3e6;--dup:#b39ae6;\
    --bad:#ff7a70;--bad-soft:#3a1f1e;--warn:#e3a643;--chip:#222833;--shadow:none}}
    *{box-sizing:border-box}
    html{-webkit-text-size-adjust:100%}
    body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","Noto Sans","Liberation Sans",Arial,sans-serif;-webkit-font-smoothing:antialiased}
    main{max-width:1240px;margin:0 auto;padding:28px 28px 64px}
    h1,h2,h3{margin:0;font-weight:650;letter-spacing:-.01em}
    h1{font-size:26px;line-height:1.25}
    h2{font-size:18px;margin:40px 0 14px;display:flex;align-items:baseline;gap:10px}
    h3{font-size:14px}
    a{color:var(--accent);text-decoration:none}
    a:hover{text-decoration:underline}
    code{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
    .num{font-variant-numeric:tabular-nums}
    .kicker{color:var(--accent);font-size:12px;font-weight:650;letter-spacing:.08em;text-transform:uppercase;margin-bottom:6px}
    .meta{color:var(--muted);margin:6px 0 0}
    nav{display:flex;flex-wrap:wrap;gap:6px;margin:18px 0 0}
    nav a{background:var(--card);border:1px solid var(--line);border-radius:999px;padding:4px 12px;color:var(--fg);font-size:13px}
    nav a:hover{border-color:var(--accent);text-decoration:none}
    .count{color:var(--muted);font-weight:500;font-size:13px}
    .banner{margin:20px 0 0;padding:12px 16px;border-radius:10px;background:var(--bad-soft);color:var(--fg);border:1px solid var(--bad)}
    .cards{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:12px;margin:24px 0 0}
    .card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:14px 16px 13px;box-shadow:var(--shadow)}
    .card .l{color:var(--muted);font-size:12px;font-weight:600;letter-spacing:.05em;text-transform:uppercase}
    .card .v{white-space:nowrap;font-size:28px;font-weight:650;letter-spacing:-.02em;line-height:1.3;margin-top:2px;font-variant-numeric:tabular-nums}
    .card .v small{font-size:14px;font-weight:500;color:var(--muted);margin-left:3px;letter-spacing:0}
    .card .s{color:var(--muted);font-size:12.5px;margin-top:2px}
    .card.bad .v{color:var(--bad)}
    .card.good .v{color:var(--ok)}
    .status{margin:16px 0 0;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:14px 16px;box-shadow:var(--shadow)}
    .stack{display:flex;height:10px;border-radius:999px;overflow:hidden;background:var(--grid)}
    .stack span{display:block;height:100%}
    .legend{display:flex;flex-wrap:wrap;gap:6px 18px;margin-top:10px;color:var(--muted);font-size:13px}
    .facts{display:grid;grid-template-columns:repeat(5,minmax(0,1fr));gap:12px 20px;margin:14px 0 0;padding:14px 0 0;border-top:1px solid var(--line)}
    .facts dt{color:var(--muted);font-size:12px;font-weight:600;letter-spacing:.05em;text-transform:uppercase}
    .facts dd{margin:1px 0 0;font-size:16px;font-weight:600;font-variant-numeric:tabular-nums}
    .facts small{display:block;color:var(--muted);font-size:12.5px;font-weight:400}
    .legend b{color:var(--fg);font-weight:600;font-variant-numeric:tabular-nums}
    .sw{display:inline-block;width:10px;height:10px;border-radius:3px;margin-right:6px;vertical-align:-1px}
    .s-ok{background:var(--ok)}.s-unchanged{background:var(--unchanged)}.s-duplicate{background:var(--dup)}.s-failed{background:var(--bad)}
    .settings{display:flex;flex-wrap:wrap;gap:6px;margin:14px 0 0;align-items:center}
    .settings .l{color:var(--muted);font-size:13px;margin-right:4px}
    .chip{background:var(--chip);border-radius:6px;padding:2px 8px;font-size:12.5px}
    .chip b{font-weight:600}
    .charts{display:grid;grid-template-columns:repeat(6,minmax(0,1fr));gap:14px}\
    .panel{grid-column:span 3}.panel.third{grid-column:span 2}\
    .panel h4{margin:14px 0 4px;font-size:12px;font-weight:600;color:var(--muted);letter-spacing:.04em;text-transform:uppercase}
    .panel{margin:0;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:16px 16px 10px;box-shadow:var(--shadow);min-width:0}
    .panel figcaption{margin-bottom:8px}
    .panel figcaption p{margin:2px 0 0;color:var(--muted);font-size:12.5px}
    .chart{display:block;width:100%;height:auto;overflow:visible}
    .chart text{fill:var(--muted);font-size:11px;font-variant-numeric:tabular-nums}
    .chart .atitle{fill:var(--faint);font-size:11px}
    .chart .note{fill:var(--faint);font-size:11px}
    .chart .blabel{fill:var(--fg);font-size:12.5px}
    .chart .bvalue{fill:var(--fg);font-size:12.5px;font-weight:600}
    .chart .grid{stroke:var(--grid);stroke-width:1}
    .chart .axis,.chart .tick{stroke:var(--faint);stroke-width:1}
    .chart .diag{stroke:var(--faint);stroke-width:1;stroke-dasharray:4 4}
    .chart .bar{fill:var(--accent)}
    .chart .bar.ok{fill:var(--ok)}.chart .bar.bad{fill:var(--bad)}.chart .bar.warn{fill:var(--warn)}.chart .bar.muted{fill:var(--faint)}
    .chart .track{fill:var(--grid)}
    .chart .dot{fill:var(--accent);fill-opacity:.45;stroke:var(--accent);stroke-width:1}
    .chart .cell{fill:var(--accent)}
    .empty{margin:28px 0;text-align:center;color:var(--faint)}
    .tablewrap{background:var(--card);border:1px solid var(--line);border-radius:12px;overflow:hidden;box-shadow:var(--shadow)}
    table{width:100%;border-collapse:collapse;table-layout:fixed}
    th,td{text-align:left;padding:9px 14px;border-top:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}
    th{border-top:0;background:var(--chip);color:var(--muted);font-size:12px;font-weight:600;letter-spacing:.04em;text-transform:uppercase}
    .c1{width:34%}.c2{width:136px}
    td small{display:block;color:var(--muted);font-size:12px}
    .code{display:inline-block;white-space:nowrap;background:var(--bad-soft);color:var(--bad);border-radius:6px;padding:1px 8px;font-size:12px;font-weight:600}
    .code.ok{background:color-mix(in srgb,var(--ok) 14%,transparent);color:var(--ok)}
    .code.unchanged{background:color-mix(in srgb,var(--unchanged) 14%,transparent);color:var(--unchanged)}
    .code.duplicate{background:color-mix(in srgb,var(--dup) 14%,transparent);color:var(--dup)}
    .chunk{content-visibility:auto;contain-intrinsic-size:auto 20000px}
    .rows{contain-intrinsic-size:auto 20000px}
    .rows table td{border-top:1px solid var(--line)}
    .grid{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(176px,1fr));gap:12px}
    .grid+.grid{margin-top:12px}
    .grid.group{padding-left:10px;border-left:3px solid var(--accent)}
    .grid li{position:relative;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:8px;min-width:0}
    .grid img,.grid .t{display:block;width:100%;height:150px;object-fit:contain;border-radius:6px;background:var(--grid) center/contain no-repeat}
    .grid .play{position:absolute;left:14px;top:133px;padding:2px 7px;border-radius:999px;background:rgba(0,0,0,.62);color:#fff;font-size:11px;font-weight:600;font-variant-numeric:tabular-nums;pointer-events:none}
    .grid b{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden;overflow-wrap:anywhere;margin:7px 2px 0;font-size:12.5px;font-weight:550;line-height:1.35}
    .grid i{display:block;margin:2px 2px 0;color:var(--muted);font-style:normal;font-size:11.5px;font-variant-numeric:tabular-nums}
    .grid .dup::after{content:"duplicate";position:absolute;top:13px;left:13px;background:var(--dup);color:#fff;font-size:10.5px;font-weight:600;border-radius:5px;padding:0 6px}
    .sub{color:var(--muted);margin:-6px 0 14px;font-size:13px}
    footer{margin-top:48px;color:var(--faint);font-size:12.5px;text-align:center}
    @media (max-width:900px){.panel,.panel.third{grid-column:span 6}.cards{grid-template-columns:repeat(2,minmax(0,1fr))}.facts{grid-template-columns:repeat(2,minmax(0,1fr))}}\
    @media (max-width:640px){main{padding:18px 14px 40px}.c1{width:45%}.c2{width:96px}}
    """
}
