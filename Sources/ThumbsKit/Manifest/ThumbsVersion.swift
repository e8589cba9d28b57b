public enum ThumbsVersion {
    public static let current = "0.1.0"
}
