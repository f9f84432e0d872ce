import Foundation

/// The suite's plot: for each timed workload, seconds against number of flights for each
/// engine, both axes logarithmic, as one SVG file.
struct Plot {
    let runs: [ScaleRun.Result]
    static let colors = ["graphstore": "#d62728", "sqlite": "#1f77b4", "grdb": "#2ca02c"]

    func svg() -> String {
        let workloads = Report.timed.map(\.name)
        let columns = 4, panelWidth = 300.0, panelHeight = 220.0, margin = 50.0
        let rows = (workloads.count + columns - 1) / columns
        let width = Double(columns) * panelWidth, height = Double(rows) * panelHeight + 40
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="20" font-size="14">GraphStore vs SQLite (C API) and GRDB: seconds against flights (log–log; per query for queries)</text>

            """
        for (legendIndex, engine) in Report.engines.enumerated() {
            let x = width - 300 + Double(legendIndex) * 95
            out += "<rect x=\"\(x)\" y=\"10\" width=\"12\" height=\"12\" fill=\"\(Self.colors[engine]!)\"/><text x=\"\(x + 16)\" y=\"20\">\(engine)</text>\n"
        }
        let flights = runs.map { Double($0.flights) }
        let xMin = log10(flights.min() ?? 1), xMax = max(log10(flights.max() ?? 10), xMin + 1)
        for (index, workload) in workloads.enumerated() {
            let left = Double(index % columns) * panelWidth, top = 40 + Double(index / columns) * panelHeight
            let plotLeft = left + margin, plotTop = top + 20, plotWidth = panelWidth - margin - 15, plotHeight = panelHeight - 60
            let values = runs.flatMap { run in Report.engines.compactMap { run.seconds[workload]?[$0] } }.filter { $0 > 0 && $0.isFinite }
            guard let low = values.min(), let high = values.max() else { continue }
            let yMin = floor(log10(low)), yMax = max(ceil(log10(high)), yMin + 1)
            func x(_ flights: Double) -> Double { plotLeft + (log10(flights) - xMin) / (xMax - xMin) * plotWidth }
            func y(_ seconds: Double) -> Double { plotTop + plotHeight - (log10(seconds) - yMin) / (yMax - yMin) * plotHeight }
            out += "<text x=\"\(plotLeft)\" y=\"\(top + 12)\" font-size=\"12\" font-weight=\"bold\">\(workload)</text>\n"
            out += "<rect x=\"\(plotLeft)\" y=\"\(plotTop)\" width=\"\(plotWidth)\" height=\"\(plotHeight)\" fill=\"none\" stroke=\"#999\"/>\n"
            for decade in stride(from: yMin, through: yMax, by: 1) {
                let yy = y(pow(10, decade))
                out += "<line x1=\"\(plotLeft)\" y1=\"\(yy)\" x2=\"\(plotLeft + plotWidth)\" y2=\"\(yy)\" stroke=\"#eee\"/>"
                out += "<text x=\"\(plotLeft - 4)\" y=\"\(yy + 4)\" text-anchor=\"end\">1e\(Int(decade))s</text>\n"
            }
            for run in runs {
                let xx = x(Double(run.flights))
                out += "<text x=\"\(xx)\" y=\"\(plotTop + plotHeight + 14)\" text-anchor=\"middle\">\(label(run.flights))</text>\n"
            }
            for engine in Report.engines {
                let points = runs.compactMap { run -> (Double, Double)? in
                    guard let s = run.seconds[workload]?[engine], s > 0, s.isFinite else { return nil }
                    return (x(Double(run.flights)), y(s))
                }
                let color = Self.colors[engine]!
                if points.count > 1 {
                    out += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points.map { "\($0.0),\($0.1)" }.joined(separator: " "))\"/>\n"
                }
                for (px, py) in points { out += "<circle cx=\"\(px)\" cy=\"\(py)\" r=\"3\" fill=\"\(color)\"/>\n" }
            }
        }
        return out + "</svg>\n"
    }

    private func label(_ flights: Int) -> String {
        flights >= 1_000_000 ? "\(flights / 1_000_000)M" : flights >= 1_000 ? "\(flights / 1_000)k" : "\(flights)"
    }
}
