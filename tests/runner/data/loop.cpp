// Never ends: the sandbox must turn it into a timeout.
int main() {
    volatile unsigned long n = 0;
    for (;;) n = n + 1;
}
