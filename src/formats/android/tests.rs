//! Reader tests over traces made by [`super::writer`].
