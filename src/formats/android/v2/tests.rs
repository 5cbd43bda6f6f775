//! Tests of the V2 reader and writer.
