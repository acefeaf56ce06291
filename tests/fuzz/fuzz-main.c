/*
 * fuzz-main.c - the main() of one fuzzer executable: FZ_MAIN names its entry
 * point (fz_api_main or fz_diff_main), which lives in the fuzz library so
 * that tests/test-fuzz-regress.c can call it too.
 */
int FZ_MAIN(int argc, char **argv);

int main(int argc, char **argv)
{
    return FZ_MAIN(argc, argv);
}
