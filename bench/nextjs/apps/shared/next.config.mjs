/** The same for both apps. Type errors are the packages' tests' business, not the bench's. */
export default {
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
};
