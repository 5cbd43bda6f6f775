//! Bytes sources (memory map with a read fallback) and background loading.
