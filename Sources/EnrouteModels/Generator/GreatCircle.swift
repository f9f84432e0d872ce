import Foundation

/// Distances over the Earth's surface, for routes and flight times that match the airports'
/// coordinates.
public enum GreatCircle {
    /// The Earth's mean radius in statute miles.
    static let earthRadiusMiles = 3_958.8

    /// The great-circle distance in statute miles between two points given in degrees
    /// (haversine: exact for a sphere, and well conditioned for short distances).
    public static func statuteMiles(fromLatitude lat1: Double, longitude lon1: Double, toLatitude lat2: Double, longitude lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians, dLon = (lon2 - lon1) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadiusMiles * asin(min(1, sqrt(h)))
    }
}
